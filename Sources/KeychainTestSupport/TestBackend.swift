import Foundation
import KeychainStorage
import Synchronization
import Testing

/// The stores a test suite runs against: memory, and the test process's private gnome-keyring
/// (``TestKeyring``) in either collection layout. Suites above the storage layer use
/// ``memoryAndKeyring``; the storage conformance suites use every case.
public enum TestBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case secretService
    case secretServicePerGroup
    /// Per group with shards of 2 items, so every conformance test crosses shards.
    case secretServiceSmallShards

    /// Memory, and the keyring in the layout the CLI uses.
    public static let memoryAndKeyring: [TestBackend] = [.memory, .secretServicePerGroup]

    /// The case name, in test listings.
    public var testDescription: String { rawValue }

    /// A new store: empty for memory, the shared keyring otherwise (keep tests apart with
    /// ``uniqueTeamID()``).
    public func makeStore() throws -> any ItemStore {
        switch self {
        case .memory: InMemoryStore()
        case .secretService: try TestKeyring.store(.defaultCollection)
        case .secretServicePerGroup: try TestKeyring.store(.collectionPerGroup)
        case .secretServiceSmallShards: try TestKeyring.store(.smallShards)
        }
    }

    private static let counter = Atomic<Int>(0)

    /// A team ID no other test in this process uses, so tests sharing a daemon stay apart.
    public static func uniqueTeamID() -> String {
        let serial = counter.add(1, ordering: .relaxed).newValue
        let pid = Int(ProcessInfo.processInfo.processIdentifier) % 10_000
        return "T" + String(format: "%04d%05d", pid, serial)
    }
}
