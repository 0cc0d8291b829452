import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

/// Issue 30, point 5: `SecItemUpdate` with `kSecAttrAccessGroup` in the attributes to update moves
/// the items to that group, the migration run before an app transfer. Sources followed: Apple's
/// `SecItemUpdate` documentation (the attributes to update may be any real keychain attribute of
/// the class, and `kSecAttrAccessGroup` is one); its `kSecAttrAccessGroup` page (naming a group
/// that is not among the app's access groups is an error, hence -34018 for a target the app is
/// not entitled to); and Quinn's DTS post "App ID Prefix Change and Keychain Access" (developer
/// forums thread 706128), which plans an app transfer around moving items into a group the app
/// keeps.
@Suite("SecItem: SecItemUpdate moves items between access groups")
struct SecItemMoveGroupTests {
    let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: "acct"]

    func add(_ apps: Apps, group: String, data: String) {
        let attributes = base.merging([kSecAttrAccessGroup as String: group, kSecValueData as String: Data(data.utf8)]) { $1 }
        #expect(apps.run(apps.mail) { SecItemAdd(attributes as CFDictionary, nil) } == errSecSuccess)
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func anItemMovesToAnotherEntitledGroupAndItsSiblingsSeeIt(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let own = "\(apps.team).com.contoso.mail"
        add(apps, group: own, data: "v1")
        let query = base.merging([kSecAttrAccessGroup as String: own]) { $1 }
        let status = apps.run(apps.mail) {
            SecItemUpdate(query as CFDictionary, [kSecAttrAccessGroup as String: apps.shared, kSecAttrLabel as String: "moved"] as CFDictionary)
        }
        #expect(status == errSecSuccess)
        let left = try apps.everything()
        #expect(left.map(\.group) == [apps.shared])
        #expect(left.first?.label == "moved")
        #expect(left.first?.data == Data("v1".utf8))
        var result: CFTypeRef?
        let read = base.merging([kSecReturnData as String: true]) { $1 }
        #expect(apps.run(apps.calendar) { SecItemCopyMatching(read as CFDictionary, &result) } == errSecSuccess)
        #expect(result as? Data == Data("v1".utf8))
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func aTargetTheAppIsNotEntitledToIsMissingEntitlementAndNothingMoves(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        add(apps, group: apps.shared, data: "v1")
        let status = apps.run(apps.mail) {
            SecItemUpdate(base as CFDictionary, [kSecAttrAccessGroup as String: "\(apps.team).com.contoso.notes"] as CFDictionary)
        }
        #expect(status == errSecMissingEntitlement)
        #expect(try apps.everything().map(\.group) == [apps.shared])
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func aDuplicateInTheTargetIsDuplicateItemAndNothingChanges(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let own = "\(apps.team).com.contoso.mail"
        add(apps, group: own, data: "mine")
        add(apps, group: apps.shared, data: "theirs")
        let before = try apps.everything()
        // No group in the query: both match; the one in its own group would collide in the target.
        let status = apps.run(apps.mail) {
            SecItemUpdate(base as CFDictionary, [kSecAttrAccessGroup as String: apps.shared, kSecAttrLabel as String: "x"] as CFDictionary)
        }
        #expect(status == errSecDuplicateItem)
        let after = try apps.everything()
        #expect(after.map(\.group).sorted() == before.map(\.group).sorted())
        #expect(after.allSatisfy { $0.label == nil })
        #expect(Set(after.map(\.data)) == [Data("mine".utf8), Data("theirs".utf8)])
    }
}
