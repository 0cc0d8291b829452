import Foundation
import KeychainStorage
import KeychainTestSupport
import Synchronization
import Testing

/// The storage backends the conformance suite runs against: memory, and a private
/// gnome-keyring (started by the test process itself) in both collection layouts.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case secretService
    case secretServicePerGroup

    static let all = allCases

    var testDescription: String { rawValue }

    func makeStore() throws -> any ItemStore {
        switch self {
        case .memory: InMemoryStore()
        case .secretService: try TestKeyring.store(.defaultCollection)
        case .secretServicePerGroup: try TestKeyring.store(.collectionPerGroup)
        }
    }

    private static let counter = Atomic<Int>(0)

    /// A team ID no other test in this process uses, so tests sharing a daemon stay apart.
    static func uniqueTeamID() -> String {
        let serial = counter.add(1, ordering: .relaxed).newValue
        let pid = Int(ProcessInfo.processInfo.processIdentifier) % 10_000
        return "T" + String(format: "%04d%05d", pid, serial)
    }
}
