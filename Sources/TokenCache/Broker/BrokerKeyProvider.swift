import Crypto
import Foundation
import SharedKeychain

/// The broker key as IdentityCore keeps it (`requests/broker/MSIDBrokerKeyProvider.m`): a
/// `kSecClassKey` item tagged `com.microsoft.adBrokerKey\0` in the app's MSAL sharing group
/// (`MSIDBrokerInteractiveController` passes the cache's `keychainAccessGroup`), so every app of
/// the group uses the first key any of them made, and one app deleting or replacing it changes
/// the key for all of them.
struct BrokerKeyProvider: Sendable {
    /// `MSID_BROKER_SYMMETRIC_KEY_TAG`, UTF-8 with its trailing NUL.
    static let tag = Data("com.microsoft.adBrokerKey\u{0}".utf8)
    /// `kChosenCipherKeySize` (`kCCKeySizeAES256`), in bytes.
    static let keySize = 32

    /// The key attributes `createBrokerKeyWithError` adds with.
    static let attributes = KeyAttributes(
        keyClass: KeyAttributes.symmetricKeyClass, applicationTag: tag, keyType: KeyAttributes.aesKeyType,
        keySizeInBits: keySize * 8, effectiveKeySize: keySize * 8)

    let keychain: Keychain
    /// The full access group (`initWithGroup`: team prefix added).
    let group: String
    let trace: KeychainCallTrace?

    /// `brokerKeyWithError`: the key in the group (tag, key type, group); else, as keys were
    /// kept before groups, the first in any of the app's groups; else a new one.
    func brokerKey() throws(TokenCacheError) -> Data {
        if let found = try copyMatching(group: group) { return found }
        if let found = try copyMatching(group: nil) { return found }
        return try createBrokerKey()
    }

    /// `createBrokerKeyWithError`: 256 random bits, the old key deleted first, then one add; a
    /// failed add fails (`MSIDErrorBrokerKeyFailedToCreate`), with no retry.
    func createBrokerKey() throws(TokenCacheError) -> Data {
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try deleteSymmetricKey()
        let item = NewItem(key: Self.attributes, group: group, data: key, accessibility: .afterFirstUnlockThisDeviceOnly)
        do {
            try keychain.add(item)
            record(.add, status: .success, accessibility: item.accessibility)
            return key
        } catch {
            record(.add, status: error.status, accessibility: item.accessibility)
            throw .keychain(error)
        }
    }

    /// `deleteSymmetricKeyWithError`: deletes the key (tag, key type, group); none there is no error.
    @discardableResult
    func deleteSymmetricKey() throws(TokenCacheError) -> Int {
        let query = Self.query(group: group)
        do {
            let deleted = try keychain.delete(query)
            record(.delete, status: .success, count: deleted)
            return deleted
        } catch {
            record(.delete, status: error.status)
            guard case .itemNotFound = error else { throw .keychain(error) }
            return 0
        }
    }

    /// MSAL's query: class key, the tag, `CSSM_ALGID_AES`, and the group (nil: all the app's).
    static func query(group: String?) -> KeychainQuery {
        .key(group: group, KeyFields(applicationTag: tag, keyType: KeyAttributes.aesKeyType))
    }

    private func copyMatching(group: String?) throws(TokenCacheError) -> Data? {
        do {
            let found = try keychain.copyMatching(Self.query(group: group), limit: .one)
            record(.copyMatching, status: .success, count: found.count)
            return found.first?.data
        } catch {
            record(.copyMatching, status: error.status)
            guard case .itemNotFound = error else { throw .keychain(error) }
            return nil
        }
    }

    private func record(_ function: KeychainCall.Function, status: KeychainStatus, count: Int? = nil, accessibility: Accessibility? = nil) {
        trace?.record(KeychainCall(
            function: function, keyTag: String(decoding: Self.tag, as: UTF8.self), accessibility: accessibility, status: status, count: count))
    }
}
