import Foundation
import SharedKeychain

/// How an export spells entry keys. Readers treat keys as opaque (MSAL finds entries by their
/// fields), but each SDK writes its own shape, and an export writes the shape of its reader.
public enum CacheKeyStyle: String, Sendable, CaseIterable {
    /// MSAL Python's: a refresh token's key ends with its target
    /// (`<home>-<env>-refreshtoken-<client_id>--<target>`), and there is one refresh token per
    /// user and client: a family refresh token stored apart in the keychain is folded into it
    /// (the newer of the two is written). Importing it writes both keychain items again.
    case msalPython = "msal-python"
    /// The shape earlier versions of this tool wrote: refresh-token keys without the target,
    /// and a family refresh token as an entry of its own keyed by its family ID.
    case sharedKeychainV1 = "sharedkeychain-v1"
}

/// Builds the serialized cache (MSAL Python's format) from a snapshot of the group. Entries are
/// the stored JSON as is, so unknown fields travel along; keys are derived from the fields.
struct CacheExport {
    private var sections: [CacheSection: JSONObject] = Dictionary(uniqueKeysWithValues: CacheSection.allCases.map { ($0, [:]) })

    /// - Throws: ``TokenCacheError/invalidCacheItem(item:reason:)`` for an item that cannot be
    ///   exported faithfully (unreadable, or its key taken by another item).
    init(_ snapshot: CacheSnapshot, style: CacheKeyStyle = .msalPython) throws(TokenCacheError) {
        if let bad = snapshot.invalid.first {
            throw .invalidCacheItem(item: bad.item.primaryKey.description, reason: bad.reason)
        }
        // MSAL Python keeps one refresh token per user and client: the client's and the family
        // token fold into one entry, the newer one (the client's on a tie).
        var refreshTokens: [String: CacheSnapshot.Entry<Credential>] = [:]
        for entry in snapshot.credentials {
            let isFamily = entry.value.isFamilyToken(service: entry.item.service)
            let key = entry.value.exportKey(asFamilyToken: isFamily, style: style)
            guard style == .msalPython, entry.value.type == .refreshToken else {
                try put(entry.object, key: key, in: entry.value.type.section, from: entry.item)
                continue
            }
            if let kept = refreshTokens[key] {
                let newer = entry.item.modificationDate > kept.item.modificationDate
                let tieGoesToClient = entry.item.modificationDate == kept.item.modificationDate && !isFamily
                if newer || tieGoesToClient { refreshTokens[key] = entry }
            } else {
                refreshTokens[key] = entry
            }
        }
        for (key, entry) in refreshTokens {
            try put(entry.object, key: key, in: .refreshToken, from: entry.item)
        }
        for entry in snapshot.accounts {
            try put(entry.object, key: entry.value.exportKey, in: .account, from: entry.item)
        }
        for entry in snapshot.appMetadata {
            try put(entry.object, key: entry.value.exportKey, in: .appMetadata, from: entry.item)
        }
    }

    private mutating func put(_ object: JSONObject, key: String, in section: CacheSection, from item: KeychainItem) throws(TokenCacheError) {
        guard sections[section]?[key] == nil else {
            throw .invalidCacheItem(item: item.primaryKey.description, reason: "its \(section.rawValue) key '\(key)' is also the key of another item")
        }
        sections[section, default: [:]][key] = .object(object)
    }

    /// Pretty-printed UTF-8 JSON with sorted keys: equal caches give equal bytes.
    var data: Data {
        let root = Dictionary(uniqueKeysWithValues: sections.map { ($0.key.rawValue, JSONValue.object($0.value)) })
        return CacheJSON.encode(.object(root), pretty: true)
    }
}
