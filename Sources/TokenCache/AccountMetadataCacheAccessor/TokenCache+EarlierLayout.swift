import Foundation
import SharedKeychain

extension TokenCache {
    /// Converts the emulator's earlier layout of sign-in states (one item per account, type
    /// 4001, which no SDK writes) into each client's account-metadata item (type 5001), as the
    /// SDK keeps them, and deletes the old records; returns how many were converted.
    ///
    /// The one place that reads them: one whole-group `SecItemCopyMatching`, so no ordinary
    /// operation makes a read the SDK never makes. A state kept in the client's item already
    /// wins over an old record. Removals, which read the whole group anyway, also fold the
    /// records they meet.
    @discardableResult
    public func convertEarlierLayout() throws(TokenCacheError) -> Int {
        let snapshot = try keychainCache.snapshot()
        var clients: [String: String] = [:]
        for record in snapshot.legacySignInStates { clients[CacheKey.normalized(record.value.clientID)] = record.value.clientID }
        var converted = 0
        for clientID in clients.values.sorted() {
            converted += try AccountMetadataCacheAccessor(keychainCache: keychainCache, clientID: clientID).convertEarlierLayout(in: snapshot)
        }
        return converted
    }
}
