import Foundation
import SharedKeychain

/// MSAL's single family refresh token mode, as the `sfrt_v2` flight sets it
/// (IdentityCore `MSIDAccountCredentialCache.m` `checkFRTEnabled`, `updateFRTSettings`):
/// `on` writes `{"use_single_frt":true}` into the group's shared `useSingleFRT` item, `off`
/// writes `false`. One app's flight so switches the mode for every app of the group.
public enum SingleFRTFlight: String, Sendable, Hashable, CaseIterable {
    case on, off
}

/// The group's `useSingleFRT` item: account = service = `useSingleFRT`, no generic, no type,
/// its JSON `{"use_single_frt": true|false}` ("1" and "0" read as the SDK reads them).
enum SingleFRTItem {
    static let key = "useSingleFRT"
    static let field = "use_single_frt"
    static let layout = ItemLayout(account: key, service: key, generic: nil, type: nil)

    /// What the SDK makes of the item's value: on, off, or unreadable (nil).
    static func parse(_ data: Data) -> Bool? {
        guard let object = CacheJSON.object(from: data) else { return nil }
        switch object[field] {
        case .bool(let value)?: return value
        case .integer(let value)? where value == 0 || value == 1: return value == 1
        case .string(let text)?:
            switch text.lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: return nil
            }
        default: return nil
        }
    }
}

extension AccountCredentialCache {
    /// `checkFRTEnabled`: one read of the group's `useSingleFRT` item, which the configuration's
    /// flight rewrites when it disagrees (`on` over a missing, unreadable or `false` item; `off`
    /// over a `true` or unreadable one). The SDK asks on every refresh-token lookup, every save
    /// of a family response and every account list.
    func checkFRTEnabled() throws(TokenCacheError) -> Bool {
        let layout = SingleFRTItem.layout
        let found = try keychainCache.items(matching: KeychainQuery(group: accessGroup, account: layout.account, service: layout.service)).first
        let value = found.flatMap { SingleFRTItem.parse($0.data) }
        let readable = found == nil || value != nil
        switch singleFRTFlight {
        case .on? where value != true:
            try keychainCache.saveData(CacheJSON.data([SingleFRTItem.field: .bool(true)]), at: layout)
            return true
        case .off? where value == true || !readable:
            try keychainCache.saveData(CacheJSON.data([SingleFRTItem.field: .bool(false)]), at: layout)
            return false
        default:
            return value == true
        }
    }
}
