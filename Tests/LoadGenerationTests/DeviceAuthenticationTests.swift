import Device
import Foundation
import Logging
import SharedKeychain
import Testing
@testable import LoadGeneration

/// Issue 27, finding 3: load workers and the runner's own keychains, on the device's store (and
/// through each app's view of it), ask the device's authentication before they read an item
/// whose access control asks the user.
@Suite("Load apps ask the device's authentication")
struct LoadAuthenticationTests {
    @Test func workersAndTheRunnersViewsAskTheDevice() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("load-auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let device = Device(stateDirectory: state)
        let store = try device.openStore(.memory, logger: Logger(label: "test"))
        let configuration = LoadConfiguration(apps: 1, mix: try OperationMix(parsing: "read=100"), itemsPerApp: 2, team: "LOADAUTH27")
        let worker = try LoadWorker(app: 0, configuration: configuration, keychains: AppKeychains(store: store, policy: .none))
        var guarded = NewItem(account: "guarded", service: "s", group: configuration.group, data: Data("guarded secret".utf8))
        guarded.accessControl = [.userPresence]
        try worker.keychain.add(guarded)
        try device.setAuthenticationDecision(.deny)
        let read = #expect(throws: KeychainError.self) { try worker.keychain.first(KeychainQuery(account: "guarded")) }
        #expect(read?.status == .authFailed)
        // The runner's keychains go through each app's view, as `load` makes it.
        let runner = try LoadRunner(configuration: configuration, store: store) { _ in PassThroughView(base: store) }
        let viewed = #expect(throws: KeychainError.self) { try runner.keychain(ofApp: 0).first(KeychainQuery(account: "guarded")) }
        #expect(viewed?.status == .authFailed)
    }
}

/// A view of a store that adds nothing, as a policy view of an unwatched group.
private final class PassThroughView: ItemStore {
    let base: any ItemStore
    init(base: any ItemStore) { self.base = base }
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }
    func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] { try base.items(matching: query, limit: limit) }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}
