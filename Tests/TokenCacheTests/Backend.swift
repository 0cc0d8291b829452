import Foundation
import KeychainStorage
import KeychainTestSupport
import Synchronization
import Testing

/// The storage backends the token cache suite runs against: memory, and the private
/// gnome-keyring the test process starts itself, in the layout the CLI uses.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case secretServicePerGroup

    static let all = allCases

    var testDescription: String { rawValue }

    func makeStore() throws -> any ItemStore {
        switch self {
        case .memory: InMemoryStore()
        case .secretServicePerGroup: try TestKeyring.store(.collectionPerGroup)
        }
    }

    private static let counter = Atomic<Int>(0)

    /// A team ID no other test in this process uses, so tests sharing a daemon stay apart.
    static func uniqueTeamID() -> String {
        let serial = counter.add(1, ordering: .relaxed).newValue
        let pid = Int(ProcessInfo.processInfo.processIdentifier) % 10_000
        return "C" + String(format: "%04d%05d", pid, serial)
    }
}
