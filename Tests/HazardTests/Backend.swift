import KeychainStorage
import KeychainTestSupport
import Testing

/// The stores hazards run on: memory, and the private gnome-keyring the test process starts
/// itself, in the layout the CLI uses.
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
}
