import Foundation
import SharedKeychain

extension TokenCache {
    /// The group's cache in MSAL's serialized JSON format: top-level `AccessToken`,
    /// `RefreshToken`, `IdToken`, `Account` and `AppMetadata` maps keyed
    /// `home_account_id-environment-credential_type-client_id-realm-target` (lowercased; empty
    /// realm for refresh tokens; `appmetadata-<environment>-<client_id>` for app metadata).
    /// A family refresh token is keyed with its family ID as the client part, as in the keychain.
    ///
    /// Every cache item of the group is exported, whichever app wrote it, with its stored JSON
    /// (unknown fields included). The wipe record and sign-in states are not part of the format.
    /// Output has sorted keys, so export, import into an empty group, export gives equal bytes.
    ///
    /// An item whose value cannot be read (no `secret`, say, or not JSON) is left out, as the
    /// SDK's reads skip it, and reported to ``TokenCacheConfiguration/skippedItems``.
    public func exportCache(keyStyle: CacheKeyStyle = .msalPython) throws(TokenCacheError) -> Data {
        try exportCacheReporting(keyStyle: keyStyle).data
    }

    /// ``exportCache(keyStyle:)``, with how many of ADAL's legacy items (`MSOpenTech.ADAL.1`,
    /// keyed archives) the group holds: MSAL's serialized format has no place for them, so they
    /// are left out, and the result says so.
    public func exportCacheReporting(keyStyle: CacheKeyStyle = .msalPython) throws(TokenCacheError) -> CacheExportResult {
        let items = try keychainCache.items(matching: keychainCache.groupQuery)
        // Counted first, so the items can go once decoded rather than live through the encoding.
        let legacy = items.filter(LegacyTokenCacheKey.isLegacy).count
        let data = try CacheExport(keychainCache.decoded(items), style: keyStyle).data
        return CacheExportResult(data: data, legacyItemsLeftOut: legacy)
    }

    /// Writes a serialized cache (MSAL Python's, .NET's, Java's or ``exportCache(keyStyle:)``'s)
    /// into the group, item by item in the SDK layout, update-then-add. Entry keys are opaque:
    /// each entry's item comes from its fields, unknown fields are kept, and a refresh token of a
    /// family also becomes the family token. The whole input is checked first: on an entry
    /// lacking required fields (named by section and key) nothing is written.
    ///
    /// - Returns: how many items were written.
    ///
    /// All or nothing: before the first write, an undo record (the items it will overwrite,
    /// the keys it will create) goes to the group's intent journal, and it goes once the last
    /// item is written. A process killed in between leaves the record, and the next import, or
    /// ``rollBackInterruptedImports()``, puts the group back as it was.
    ///
    /// - Parameters:
    ///   - data: the serialized cache (MSAL's JSON format).
    ///   - progress: called after each item with the count written and the total.
    @discardableResult
    public func importCache(_ data: Data, progress: (_ written: Int, _ total: Int) -> Void = { _, _ in }) throws(TokenCacheError) -> Int {
        try importCacheReporting(data, progress: progress).written
    }

    /// ``importCache(_:progress:)``, with how many of ADAL's legacy items the group holds: MSAL's
    /// serialized format carries none, so the import neither writes nor touches them, and the
    /// result says how many it left out.
    @discardableResult
    public func importCacheReporting(_ data: Data, progress: (_ written: Int, _ total: Int) -> Void = { _, _ in }) throws(TokenCacheError)
        -> CacheImportResult
    {
        // Entitlement first: an app that may not write the group learns that, not whether its
        // input parses, and nothing is read or written.
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.deviceAccessGroupList))
        }
        let plan = try CacheImport(data)
        try rollBackInterruptedImports()
        let group = try keychainCache.items(matching: KeychainQuery(group: accessGroup))
        let present = Dictionary(group.map { ($0.primaryKey, $0) }, uniquingKeysWith: { first, _ in first })
        let keys = plan.writes.map { PrimaryKey(group: accessGroup, account: $0.layout.account, service: $0.layout.service) }
        let undo = IntentJournal.Undo(restore: keys.compactMap { present[$0] }, remove: keys.filter { present[$0] == nil })
        let journal = IntentJournal(store: keychain.store.journalStore, now: now)
        let intent: IntentJournal.Intent
        do { intent = try journal.beginWrite(app: keychain.app.bundleID, operation: "cache import", group: accessGroup, undo: undo) } catch {
            throw .keychain(.storage(error))
        }
        for (index, write) in plan.writes.enumerated() {
            try keychainCache.saveData(write.data, at: write.layout)
            progress(index + 1, plan.writes.count)
            if index + 1 == plan.writes.count / 2 { FaultPoint.reached("import-midway") }
        }
        do { try journal.finish(intent) } catch { throw .keychain(.storage(error)) }
        return CacheImportResult(written: plan.writes.count, legacyItemsLeftOut: group.filter(LegacyTokenCacheKey.isLegacy).count)
    }

    /// Puts the group back as it was before any cache import that never finished (its process
    /// was killed); returns the imports rolled back, oldest first.
    @discardableResult
    public func rollBackInterruptedImports() throws(TokenCacheError) -> [IntentJournal.Intent] {
        // Only an app of the group may act on it; the others will be refused their own call.
        guard keychain.app.isEntitled(to: accessGroup) else { return [] }
        do { return try IntentJournal(store: keychain.store.journalStore, now: now).rollBack(group: accessGroup) } catch {
            throw .keychain(.storage(error))
        }
    }
}

/// What ``TokenCache/exportCacheReporting(keyStyle:)`` produced.
public struct CacheExportResult: Sendable, Hashable {
    /// The serialized cache (MSAL's JSON format).
    public let data: Data
    /// How many of ADAL's legacy items the group holds, which MSAL's format cannot carry.
    public let legacyItemsLeftOut: Int
}

/// What ``TokenCache/importCacheReporting(_:progress:)`` did.
public struct CacheImportResult: Sendable, Hashable {
    /// How many items were written.
    public let written: Int
    /// How many of ADAL's legacy items the group holds, which the import left as they were.
    public let legacyItemsLeftOut: Int
}

/// How an export spells entry keys. Readers treat keys as opaque (MSAL finds entries by their
/// fields), but each SDK writes its own shape, and an export writes the shape of its reader.
public enum CacheKeyStyle: String, Sendable, CaseIterable {
    /// MSAL Python's: a refresh token's key ends with its target
    /// (`<home>-<env>-refreshtoken-<client_id>--<target>`), and there is one refresh token per
    /// user and client: a family refresh token stored apart in the keychain is folded into it
    /// (the newer of the two is written; the family's copy when they are the same token).
    /// Importing it writes both keychain items again.
    case msalPython = "msal-python"
    /// The shape earlier versions of this tool wrote: refresh-token keys without the target,
    /// and a family refresh token as an entry of its own keyed by its family ID.
    case sharedKeychainV1 = "sharedkeychain-v1"
}

/// Builds the serialized cache (MSAL Python's format) from a snapshot of the group. Entries are
/// the stored JSON as is, so unknown fields travel along; keys are derived from the fields.
struct CacheExport {
    private var sections: [CacheSection: JSONObject] = Dictionary(uniqueKeysWithValues: CacheSection.allCases.map { ($0, [:]) })

    /// Items whose value cannot be read are left out (the snapshot skipped them, and
    /// ``KeychainTokenCache/decoded(_:)`` reported them).
    ///
    /// - Throws: ``TokenCacheError/invalidCacheItem(item:reason:)`` for an item that cannot be
    ///   exported faithfully: its key taken by another item.
    init(_ snapshot: CacheSnapshot, style: CacheKeyStyle = .msalPython) throws(TokenCacheError) {
        // MSAL Python keeps one refresh token per user and client: the client's and the family
        // token fold into one entry, the newer one; when they are the same token, the family's
        // copy, which carries the `family_id` MSAL Python's entry has (the client's own copy
        // has none, as the iOS SDKs save it).
        var refreshTokens: [String: CacheSnapshot.Entry<Credential>] = [:]
        for var entry in snapshot.credentials {
            if entry.value.type == .familyRefreshToken {
                // Serialized caches know no FamilyRefreshToken: it goes out as the family's
                // refresh token, which an import writes back in classic mode's two items.
                var token = entry.value
                token.type = .refreshToken
                var object = entry.object
                object["credential_type"] = .string(CredentialType.refreshToken.rawValue)
                entry = CacheSnapshot.Entry(item: entry.item, value: token, object: object)
            }
            let isFamily = entry.value.isFamilyToken(service: entry.item.service) || entry.item.type == CredentialType.familyRefreshToken.itemType
            let key = entry.value.exportKey(asFamilyToken: isFamily, style: style)
            guard style == .msalPython, entry.value.type == .refreshToken else {
                try put(entry.object, key: key, in: entry.value.type.section, from: entry.item)
                continue
            }
            if let kept = refreshTokens[key] {
                // The same token saved twice (the family's copy and the client's): the family's.
                if entry.value.secret == kept.value.secret {
                    if isFamily { refreshTokens[key] = entry }
                } else if entry.item.modificationDate > kept.item.modificationDate {
                    refreshTokens[key] = entry
                }
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
            throw .invalidCacheItem(item: item.primaryKey.description, reason: "its \(section.rawValue) key '\(DisplayText(key))' is also the key of another item")
        }
        sections[section, default: [:]][key] = .object(object)
    }

    /// Pretty-printed UTF-8 JSON with sorted keys: equal caches give equal bytes. Encoded a
    /// section at a time, the bytes of encoding the whole: the encoder's tree of every value of
    /// a 10,000-item cache at once cost several times the output.
    var data: Data {
        var output = Data("{\n".utf8)
        // The section names are plain ASCII words: this is the encoder's sorted order.
        let names = CacheSection.allCases.sorted { $0.rawValue < $1.rawValue }
        for (index, section) in names.enumerated() {
            output.append(contentsOf: Array("  \"\(section.rawValue)\" : ".utf8))
            PrettyJSONArray.appendNested(CacheJSON.encode(.object(sections[section] ?? [:]), pretty: true), depth: 1, to: &output)
            output.append(contentsOf: Array((index < names.count - 1 ? ",\n" : "\n").utf8))
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}
