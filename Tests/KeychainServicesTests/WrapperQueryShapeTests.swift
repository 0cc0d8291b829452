import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

// The query dictionaries of the popular iOS keychain wrappers, written fresh in each one's style
// (only SecItem calls, as on iOS), run against memory and the private keyring. Each wrapper
// shares items through the access group, as suite apps do.

/// Valet's style: a base query of class, service (the Valet's identifier), access group,
/// accessibility and the data-protection keychain; writes check for the key first, then update
/// or add; `allKeys` reads every account's attributes.
struct ValetStyle {
    let identifier: String
    let group: String

    var baseQuery: [String: AnyHashable] {
        [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: identifier,
            kSecAttrAccessGroup as String: group,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock as String,
            kSecUseDataProtectionKeychain as String: true,
        ]
    }

    func setString(_ string: String, forKey key: String) -> OSStatus {
        var query = baseQuery
        query[kSecAttrAccount as String] = key
        let existing = SecItemCopyMatching(query as CFDictionary, nil)
        switch existing {
        case errSecSuccess:
            return SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data(string.utf8)] as CFDictionary)
        case errSecItemNotFound:
            query[kSecValueData as String] = Data(string.utf8)
            return SecItemAdd(query as CFDictionary, nil)
        default:
            return existing
        }
    }

    func string(forKey key: String) -> String? {
        var query = baseQuery
        query[kSecAttrAccount as String] = key
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    func allKeys() -> Set<String> {
        var query = baseQuery
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return Set(items.compactMap { $0[kSecAttrAccount as String] as? String })
    }

    func removeObject(forKey key: String) -> OSStatus {
        var query = baseQuery
        query[kSecAttrAccount as String] = key
        return SecItemDelete(query as CFDictionary)
    }

    func removeAllObjects() -> OSStatus {
        SecItemDelete(baseQuery as CFDictionary)
    }
}

/// KeychainAccess's style: queries carry `kSecAttrSynchronizableAny` except on add; `set`
/// probes with a query and no result, then updates (label and comment too) or adds.
struct KeychainAccessStyle {
    let service: String
    let accessGroup: String?

    private var query: [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        return query
    }

    func set(_ value: String, key: String, label: String, comment: String) -> OSStatus {
        var search = query
        search[kSecAttrAccount as String] = key
        var status = SecItemCopyMatching(search as CFDictionary, nil)
        let attributes: [String: Any] = [
            kSecValueData as String: Data(value.utf8), kSecAttrLabel as String: label, kSecAttrComment as String: comment,
        ]
        switch status {
        case errSecSuccess:
            status = SecItemUpdate(search as CFDictionary, attributes as CFDictionary)
        case errSecItemNotFound:
            var add = search.merging(attributes) { $1 }
            add[kSecAttrSynchronizable as String] = kCFBooleanFalse
            add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
            status = SecItemAdd(add as CFDictionary, nil)
        default:
            break
        }
        return status
    }

    func get(_ key: String) -> String? {
        var search = query
        search[kSecAttrAccount as String] = key
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        search[kSecReturnData as String] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess else { return nil }
        return (result as? Data).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// `attributes(key)`: data, attributes and persistent reference in one dictionary.
    func attributes(_ key: String) -> [String: Any]? {
        var search = query
        search[kSecAttrAccount as String] = key
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        search[kSecReturnData as String] = kCFBooleanTrue
        search[kSecReturnAttributes as String] = kCFBooleanTrue
        search[kSecReturnPersistentRef as String] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    func removeAll() -> OSStatus {
        let status = SecItemDelete(query as CFDictionary)
        return status == errSecItemNotFound ? errSecSuccess : status
    }
}

/// SimpleKeychain's style: delete-then-add writes, `hasItem` by status alone, keys by attributes.
struct SimpleKeychainStyle {
    let service: String
    let accessGroup: String?

    private func baseQuery(_ key: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let key { query[kSecAttrAccount as String] = key }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    func set(_ data: Data, forKey key: String) -> OSStatus {
        _ = SecItemDelete(baseQuery(key) as CFDictionary)
        var query = baseQuery(key)
        query[kSecValueData as String] = data
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        return SecItemAdd(query as CFDictionary, nil)
    }

    func data(forKey key: String) -> Data? {
        var query = baseQuery(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        return SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess ? result as? Data : nil
    }

    func hasItem(forKey key: String) -> Bool {
        SecItemCopyMatching(baseQuery(key) as CFDictionary, nil) == errSecSuccess
    }

    func keys() -> [String] {
        var query = baseQuery()
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    func deleteAll() -> OSStatus {
        SecItemDelete(baseQuery() as CFDictionary)
    }
}

/// keychain-swift's style: no service (the key is the account, with a prefix), delete before
/// add, `kSecAttrSynchronizableAny` on reads when synchronizable, and `clear` by class alone.
struct KeychainSwiftStyle {
    let keyPrefix: String
    let accessGroup: String?
    let synchronizable: Bool

    private func addAccessGroupAndSync(_ query: inout [String: Any], isAdd: Bool) {
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        if synchronizable { query[kSecAttrSynchronizable as String] = isAdd ? true : kSecAttrSynchronizableAny }
    }

    func set(_ value: String, forKey key: String) -> OSStatus {
        _ = delete(key)
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: keyPrefix + key,
            kSecValueData as String: Data(value.utf8), kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        ]
        addAccessGroupAndSync(&query, isAdd: true)
        return SecItemAdd(query as CFDictionary, nil)
    }

    func get(_ key: String) -> String? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: keyPrefix + key,
            kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnData as String: kCFBooleanTrue!,
        ]
        addAccessGroupAndSync(&query, isAdd: false)
        var result: AnyObject?
        let status = withUnsafeMutablePointer(to: &result) { SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0)) }
        guard status == noErr, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    var allKeys: [String] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        addAccessGroupAndSync(&query, isAdd: false)
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == noErr, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    func delete(_ key: String) -> OSStatus {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: keyPrefix + key]
        addAccessGroupAndSync(&query, isAdd: false)
        return SecItemDelete(query as CFDictionary)
    }

    func clear() -> OSStatus {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        addAccessGroupAndSync(&query, isAdd: false)
        return SecItemDelete(query as CFDictionary)
    }
}

/// keychain-swift compares with `noErr`, as older Apple code does.
let noErr: OSStatus = 0

@Suite("iOS keychain wrappers' query shapes through SecItem")
struct WrapperQueryShapeTests {
    @Test(arguments: TestBackend.memoryAndKeyring)
    func valetSharesThroughTheGroupAndRemoveAllEmptiesOnlyItsService(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let mailValet = ValetStyle(identifier: "com.contoso.tokens", group: apps.shared)
        let otherValet = ValetStyle(identifier: "com.contoso.settings", group: apps.shared)
        apps.run(apps.mail) {
            #expect(mailValet.setString("rt-1", forKey: "alice") == errSecSuccess)
            #expect(mailValet.setString("rt-2", forKey: "alice") == errSecSuccess)
            #expect(mailValet.setString("rt-b", forKey: "bob") == errSecSuccess)
            #expect(otherValet.setString("dark", forKey: "theme") == errSecSuccess)
        }
        apps.run(apps.calendar) {
            #expect(mailValet.string(forKey: "alice") == "rt-2")
            #expect(mailValet.allKeys() == ["alice", "bob"])
        }
        // Notes is not entitled: Valet's query names the group, so -34018.
        apps.run(apps.notes) { #expect(mailValet.setString("x", forKey: "eve") == errSecMissingEntitlement) }
        apps.run(apps.calendar) {
            #expect(mailValet.removeObject(forKey: "bob") == errSecSuccess)
            #expect(mailValet.removeObject(forKey: "bob") == errSecItemNotFound)
            #expect(mailValet.removeAllObjects() == errSecSuccess)
        }
        #expect(try apps.everything().map(\.account) == ["theme"])
        #expect(try apps.everything().first?.accessibility == .afterFirstUnlock)
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func keychainAccessUpdatesLabelAndCommentAndReturnsAPersistentReference(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let keychain = KeychainAccessStyle(service: "com.contoso.api", accessGroup: apps.shared)
        let attributes = try apps.run(apps.mail) { () throws -> [String: Any]? in
            #expect(keychain.set("v1", key: "token", label: "API token", comment: "first") == errSecSuccess)
            #expect(keychain.set("v2", key: "token", label: "API token", comment: "second") == errSecSuccess)
            #expect(keychain.get("token") == "v2")
            return keychain.attributes("token")
        }
        let values = try #require(attributes)
        #expect(values[kSecAttrComment as String] as? String == "second")
        #expect(values[kSecAttrLabel as String] as? String == "API token")
        #expect(values[kSecValueData as String] as? Data == Data("v2".utf8))
        #expect(values[kSecAttrAccessGroup as String] as? String == apps.shared)
        #expect(values[kSecAttrModificationDate as String] is Date)
        // The persistent reference finds the item again, from another app of the group.
        let reference = try #require(values[kSecValuePersistentRef as String] as? Data)
        apps.run(apps.calendar) {
            var result: CFTypeRef?
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
                kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("v2".utf8))
            #expect(keychain.removeAll() == errSecSuccess)
            #expect(keychain.removeAll() == errSecSuccess)
            #expect(keychain.get("token") == nil)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func simpleKeychainDeletesThenAddsAndListsKeys(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let keychain = SimpleKeychainStyle(service: "Auth0", accessGroup: apps.shared)
        apps.run(apps.mail) {
            #expect(keychain.set(Data([0, 1, 2]), forKey: "credentials") == errSecSuccess)
            #expect(keychain.set(Data([3]), forKey: "credentials") == errSecSuccess)
            #expect(keychain.set(Data([4]), forKey: "expiry") == errSecSuccess)
        }
        apps.run(apps.calendar) {
            #expect(keychain.hasItem(forKey: "credentials"))
            #expect(!keychain.hasItem(forKey: "missing"))
            #expect(keychain.data(forKey: "credentials") == Data([3]))
            #expect(keychain.keys() == ["credentials", "expiry"])
            #expect(keychain.deleteAll() == errSecSuccess)
            #expect(keychain.keys().isEmpty)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func keychainSwiftClearEmptiesEveryGroupItReachesAndSynchronizableItemsNeedAny(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let synced = KeychainSwiftStyle(keyPrefix: "app_", accessGroup: apps.shared, synchronizable: true)
        let local = KeychainSwiftStyle(keyPrefix: "app_", accessGroup: nil, synchronizable: false)
        apps.run(apps.mail) {
            #expect(synced.set("s", forKey: "sync") == errSecSuccess)
            #expect(local.set("l", forKey: "local") == errSecSuccess)
            #expect(synced.get("sync") == "s")
            // Without kSecAttrSynchronizable a query matches local items only, as on Apple's.
            #expect(local.get("sync") == nil)
            #expect(local.get("local") == "l")
            #expect(Set(synced.allKeys) == ["app_sync", "app_local"])
            #expect(local.allKeys == ["app_local"])
        }
        // Calendar's `clear()` without a group reaches the shared group: the local item Mail
        // put there (its first group) is gone; the synchronizable one needs Any to be seen.
        apps.run(apps.calendar) { #expect(local.clear() == errSecSuccess) }
        #expect(try apps.everything().map(\.account) == ["app_sync"])
        #expect(try apps.everything().first?.synchronizable == true)
    }

    /// MSAL's shapes: the team-ID probe, update-then-add token writes, the group-wide account
    /// query, and the group-wide delete behind "any application can delete all the tokens".
    @Test(arguments: TestBackend.memoryAndKeyring)
    func msalProbesTheTeamWritesUpdateThenAddAndAnyAppWipesTheGroup(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let teamHint = apps.run(apps.mail) { () -> String? in
            let probe: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "SDK.ObjC.teamIDHint",
                kSecAttrService as String: "", kSecReturnAttributes as String: kCFBooleanTrue!,
            ]
            var result: CFTypeRef?
            var status = SecItemCopyMatching(probe as CFDictionary, &result)
            if status == errSecItemNotFound { status = SecItemAdd(probe as CFDictionary, &result) }
            guard status == errSecSuccess, let attributes = result as? [String: Any],
                let group = attributes[kSecAttrAccessGroup as String] as? String
            else { return nil }
            return group.components(separatedBy: ".").first
        }
        #expect(teamHint == apps.team)

        let cacheGroup = apps.shared
        func save(_ service: String, type: Int, json: String) -> OSStatus {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: cacheGroup,
                kSecAttrAccount as String: "uid.utid-login.microsoftonline.com", kSecAttrService as String: service,
                kSecAttrType as String: NSNumber(value: type),
            ]
            let update: [String: Any] = [kSecValueData as String: Data(json.utf8), kSecAttrGeneric as String: Data(service.utf8)]
            let status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
            guard status == errSecItemNotFound else { return status }
            return SecItemAdd(query.merging(update) { $1 } as CFDictionary, nil)
        }
        apps.run(apps.mail) {
            #expect(save("refreshtoken-client--", type: 2002, json: #"{"secret":"rt-1"}"#) == errSecSuccess)
            #expect(save("refreshtoken-client--", type: 2002, json: #"{"secret":"rt-2"}"#) == errSecSuccess)
            #expect(save("contoso.com", type: 1003, json: #"{"username":"alice"}"#) == errSecSuccess)
        }
        let accounts = apps.run(apps.calendar) { () -> [[String: Any]] in
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: cacheGroup,
                kSecAttrType as String: 1003, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true, kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
            return result as? [[String: Any]] ?? []
        }
        #expect(accounts.count == 1)
        #expect(accounts.first?[kSecValueData as String] as? Data == Data(#"{"username":"alice"}"#.utf8))
        #expect((accounts.first?[kSecAttrType as String] as? NSNumber)?.intValue == 1003)
        // The hazard: Calendar deletes every token of the suite with one call.
        apps.run(apps.calendar) {
            #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: cacheGroup] as CFDictionary) == errSecSuccess)
        }
        #expect(try apps.everything().filter { $0.group == cacheGroup }.isEmpty)
    }
}
