import Foundation
import SharedKeychain

/// Builds the serialized cache (MSAL Python's format) from a snapshot of the group. Entries are
/// the stored JSON as is, so unknown fields travel along; keys are derived from the fields.
struct CacheExport {
    private var sections: [CacheSection: JSONObject] = Dictionary(uniqueKeysWithValues: CacheSection.allCases.map { ($0, [:]) })

    /// - Throws: ``TokenCacheError/invalidCacheItem(item:reason:)`` for an item that cannot be
    ///   exported faithfully (unreadable, or its key taken by another item).
    init(_ snapshot: CacheSnapshot) throws(TokenCacheError) {
        if let bad = snapshot.invalid.first {
            throw .invalidCacheItem(item: bad.item.primaryKey.description, reason: bad.reason)
        }
        for entry in snapshot.credentials {
            let isFamily = entry.value.isFamilyToken(service: entry.item.service)
            try put(entry.object, key: entry.value.exportKey(asFamilyToken: isFamily), in: entry.value.type.section, from: entry.item)
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
