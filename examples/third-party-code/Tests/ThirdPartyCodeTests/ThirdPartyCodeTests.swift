import Foundation
import GenericKeychain
import GenericKeychain5
import Security
import SwiftKeychainWrapper
import Testing

// The flows of real keychain code (Vendor/GenericKeychain, Vendor/SwiftKeychainWrapper, fetched
// unchanged by scripts/third-party-code.sh),
// run as the app the environment names, on the keychain it names. Each suite uses its own
// service, so suites of other targets running at the same time see none of its items.

/// Apple's GenericKeychain sample: what its AccountsViewController and AccountDetailsViewController do.
@Suite(.serialized)
struct GenericKeychainSampleTests {
    let service = "com.contoso.generic.\(UUID().uuidString.prefix(8))"
    let shared = "ABCDE12345.com.contoso.shared"

    @Test func savesReadsRenamesListsAndDeletesAPassword() throws {
        var item = GenericKeychain.KeychainPasswordItem(service: service, account: "alice", accessGroup: shared)
        #expect(throws: GenericKeychain.KeychainPasswordItem.KeychainError.self) { try item.readPassword() }
        try item.savePassword("first")
        #expect(try item.readPassword() == "first")
        try item.savePassword("second")
        #expect(try item.readPassword() == "second")
        try item.renameAccount("alice@contoso.com")
        #expect(item.account == "alice@contoso.com")
        #expect(try item.readPassword() == "second")
        try GenericKeychain.KeychainPasswordItem(service: service, account: "bob", accessGroup: shared).savePassword("b")
        let accounts = try GenericKeychain.KeychainPasswordItem.passwordItems(forService: service, accessGroup: shared).map(\.account)
        #expect(Set(accounts) == ["alice@contoso.com", "bob"])
        for listed in try GenericKeychain.KeychainPasswordItem.passwordItems(forService: service, accessGroup: shared) {
            try listed.deleteItem()
        }
        #expect(try GenericKeychain.KeychainPasswordItem.passwordItems(forService: service, accessGroup: shared).isEmpty)
    }

    /// The Swift 5 build of the same file reads what the Swift 6 build wrote.
    @Test func theSwift5BuildReadsWhatTheSwift6BuildWrote() throws {
        try GenericKeychain.KeychainPasswordItem(service: service, account: "carol").savePassword("c")
        let same = GenericKeychain5.KeychainPasswordItem(service: service, account: "carol")
        #expect(try same.readPassword() == "c")
        try same.deleteItem()
        #expect(try GenericKeychain.KeychainPasswordItem.passwordItems(forService: service).isEmpty)
    }
}

/// SwiftKeychainWrapper: the flows its README shows and its own tests check.
@Suite(.serialized)
struct SwiftKeychainWrapperTests {
    let wrapper = KeychainWrapper(serviceName: "com.contoso.wrapper.\(UUID().uuidString.prefix(8))")

    @Test func setsReadsAndRemovesValuesOfEveryType() {
        #expect(wrapper.set("token", forKey: "string"))
        #expect(wrapper.set(42, forKey: "integer"))
        #expect(wrapper.set(true, forKey: "bool"))
        #expect(wrapper.set(Data([1, 2, 3]), forKey: "data"))
        #expect(wrapper.string(forKey: "string") == "token")
        #expect(wrapper.integer(forKey: "integer") == 42)
        #expect(wrapper.bool(forKey: "bool") == true)
        #expect(wrapper.data(forKey: "data") == Data([1, 2, 3]))
        #expect(wrapper.hasValue(forKey: "string"))
        #expect(wrapper.set("other", forKey: "string"))
        #expect(wrapper.string(forKey: "string") == "other")
        #expect(wrapper.allKeys() == ["string", "integer", "bool", "data"])
        #expect(wrapper.removeObject(forKey: "string"))
        #expect(!wrapper.hasValue(forKey: "string"))
        #expect(wrapper.removeAllKeys())
        #expect(wrapper.allKeys().isEmpty)
    }

    @Test func keepsAccessibilityAndFindsAnItemByItsPersistentReference() {
        #expect(wrapper.set("v", forKey: "k", withAccessibility: .afterFirstUnlockThisDeviceOnly))
        #expect(wrapper.accessibilityOfKey("k") == .afterFirstUnlockThisDeviceOnly)
        #expect(wrapper.string(forKey: "k", withAccessibility: .afterFirstUnlockThisDeviceOnly) == "v")
        #expect(wrapper.dataRef(forKey: "k") != nil)
        #expect(wrapper.removeAllKeys())
    }

    @Test func aSharedGroupWrapperSeesOnlyItsGroup() {
        let shared = KeychainWrapper(serviceName: wrapper.serviceName, accessGroup: "ABCDE12345.com.contoso.shared")
        #expect(shared.set("in the group", forKey: "k"))
        #expect(shared.string(forKey: "k") == "in the group")
        #expect(shared.allKeys() == ["k"])
        #expect(shared.removeAllKeys())
        #expect(shared.allKeys().isEmpty)
    }
}
