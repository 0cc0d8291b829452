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
    /// - Throws: ``TokenCacheError/invalidCacheItem(item:reason:)`` for an item that is not valid
    ///   (no `secret`, say) rather than leaving it out silently.
    public func exportCache(keyStyle: CacheKeyStyle = .msalPython) throws(TokenCacheError) -> Data {
        try CacheExport(snapshot(), style: keyStyle).data
    }

    /// Writes a serialized cache (MSAL Python's, .NET's, Java's or ``exportCache(keyStyle:)``'s)
    /// into the group, item by item in the SDK layout, update-then-add. Entry keys are opaque:
    /// each entry's item comes from its fields, unknown fields are kept, and a refresh token of a
    /// family also becomes the family token. The whole input is checked first: on an entry
    /// lacking required fields (named by section and key) nothing is written.
    ///
    /// - Returns: how many items were written.
    @discardableResult
    public func importCache(_ data: Data) throws(TokenCacheError) -> Int {
        // Entitlement first: an app that may not write the group learns that, not whether its
        // input parses, and nothing is read or written.
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.accessGroupNames))
        }
        let plan = try CacheImport(data)
        for write in plan.writes { try store(write.data, at: write.layout) }
        return plan.writes.count
    }
}
