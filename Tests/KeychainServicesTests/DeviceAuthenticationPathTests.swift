import Device
import Foundation
import KeychainServices
import SharedKeychain
import Testing

/// Issue 27, finding 3, in the libraries: a keychain or SecItem context made on the device's
/// store, however it is made, asks the device's authentication before it returns the data of an
/// item whose access control asks the user; attributes alone never carry that data.
@Suite("The device's authentication on every keychain made on its store", .serialized)
struct DeviceAuthenticationPathTests {
    struct Rig {
        let state: URL
        let device: Device
        let store: any ItemStore
        let app: AppIdentity
        let secret = Data("guarded \(UUID().uuidString)".utf8)

        init() throws {
            state = FileManager.default.temporaryDirectory.appendingPathComponent("auth-path-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            device = Device(stateDirectory: state)
            // The device's own store, as the SecItem environment opens it.
            store = try SecItemContext.fromEnvironment([
                "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_TEAM": "ABCDE12345",
                "SHARED_KEYCHAIN_KEYRING": "memory",
            ]).keychain.store
            app = try AppIdentity(bundleID: "com.contoso.mail", teamID: TeamIdentifier("ABCDE12345"))
            var guarded = NewItem(account: "guarded", service: "s", data: secret)
            guarded.accessControl = [.userPresence]
            try Keychain(app: app, store: store).add(guarded)
            try Keychain(app: app, store: store).add(NewItem(account: "plain", service: "s", data: Data("plain".utf8)))
        }

        func remove() { try? FileManager.default.removeItem(at: state) }
    }

    @Test(arguments: [(AuthenticationDecision.deny, KeychainStatus.authFailed), (.cancel, .userCanceled)])
    func aKeychainMadeOnTheDevicesStoreAsksTheDevice(_ refusal: (AuthenticationDecision, KeychainStatus)) throws {
        let rig = try Rig()
        defer { rig.remove() }
        try rig.device.setAuthenticationDecision(refusal.0)
        // Made without naming any authentication: the store's device answers.
        let keychain = Keychain(app: rig.app, store: rig.store)
        let read = #expect(throws: KeychainError.self) { try keychain.first(KeychainQuery(account: "guarded")) }
        #expect(read?.status == refusal.1)
        let update = #expect(throws: KeychainError.self) {
            try keychain.update(KeychainQuery(account: "guarded"), with: ItemChange(data: Data("new".utf8)))
        }
        #expect(update?.status == refusal.1)
        // Listings and attribute reads carry no data of an item that asks the user.
        let listed = try keychain.copyAll(KeychainQuery(service: "s"))
        #expect(listed.map(\.account) == ["guarded", "plain"])
        #expect(!listed.contains { $0.data == rig.secret })
        let attributes = try keychain.copyMatching(KeychainQuery(account: "guarded"), limit: .one, returningData: false, authenticationUI: .allow)
        #expect(attributes.map(\.data) == [Data()])
        let all = #expect(throws: KeychainError.self) { try keychain.copyMatching(KeychainQuery(service: "s"), limit: .all) }
        #expect(all?.status == refusal.1)
        let listedWithData = #expect(throws: KeychainError.self) { try keychain.copyAll(KeychainQuery(service: "s"), returningData: true) }
        #expect(listedWithData?.status == refusal.1)
        try rig.device.setAuthenticationDecision(.allow)
        #expect(try keychain.first(KeychainQuery(account: "guarded")).data == rig.secret)
    }

    @Test func aSecItemContextMadeOnTheDevicesStoreAsksTheDevice() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try rig.device.setAuthenticationDecision(.deny)
        let context = SecItemContext(app: rig.app, store: rig.store)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemContext.with(context) { SecItemCopyMatching(query as CFDictionary, &result) }
        #expect(status == errSecAuthFailed)
        #expect(result == nil)
        var attributes = query
        attributes[kSecReturnData as String] = false
        attributes[kSecReturnAttributes as String] = true
        #expect(SecItemContext.with(context) { SecItemCopyMatching(attributes as CFDictionary, &result) } == errSecSuccess)
        #expect((result as? [String: Any])?[kSecValueData as String] == nil)
        try rig.device.setAuthenticationDecision(.allow)
        #expect(SecItemContext.with(context) { SecItemCopyMatching(query as CFDictionary, &result) } == errSecSuccess)
        #expect(result as? Data == rig.secret)
    }
}
