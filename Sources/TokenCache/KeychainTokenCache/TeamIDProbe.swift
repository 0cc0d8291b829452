import Foundation
import SharedKeychain
import Synchronization

/// MSAL's team-ID probe (IdentityCore `util/ios/MSIDKeychainUtil.m` `appDefaultAccessGroup`,
/// `getTeamId`): before its token cache's first keychain call, the SDK finds the app's team ID
/// from the access group of an item of its own, once per process:
///
/// 1. `SecItemCopyMatching({class, account "SDK.ObjC.teamIDHint", service "", returnAttributes})`,
///    with NO access group, so every group of the app is searched;
/// 2. on errSecInteractionNotAllowed, `SecItemDelete` of the same query (a failed delete ends the
///    probe without a team ID);
/// 3. on errSecItemNotFound or errSecInteractionNotAllowed, `SecItemAdd` of the query with
///    `kSecAttrAccessibleAlways` and no group, so the item lands in the app's default (first)
///    access group;
/// 4. the team ID is the first `.`-separated component of the found or added item's group.
///
/// The item has no data, no type and no generic. When the app's first group is the shared one,
/// the probe lives there, counts among its items, and goes with a `wipeCacheForAllAccounts`.
enum TeamIDProbe {
    /// `kSecAttrAccount` of the probe item.
    static let account = "SDK.ObjC.teamIDHint"
    /// `kSecAttrService` of the probe item: empty.
    static let service = ""

    /// Whether `item` is a team-ID probe item.
    static func isProbe(_ item: KeychainItem) -> Bool {
        item.account == account && item.service == service && item.type == nil
    }

    /// The probe's query: no group, so it searches (and deletes in) every group of the app.
    static var query: KeychainQuery {
        KeychainQuery(account: account, service: service, filters: ItemQuery.Filters(itemClass: .genericPassword))
    }

    /// Which app, in which store, has already probed in this process. The SDK keeps the answer
    /// in a `dispatch_once` static for the life of the process; the emulator runs many apps in
    /// one process, so it keeps one answer per app (and store). A store that is not a class
    /// has no identity to key by, and probes again for every cache made on it.
    private struct Prober: Hashable {
        var app: AppIdentity
        var store: ObjectIdentifier?
    }

    /// Each prober's app default access group, once found.
    private static let found = Mutex<[Prober: String]>([:])

    /// The app's default access group, probing the keychain the first time this process asks
    /// for `keychain`'s app; each call the probe makes is reported to `trace`.
    ///
    /// - Throws: the keychain's error when the probe cannot find or add its item (the SDK's
    ///   "Failed to retrieve teamId from keychain."); nothing is remembered then, so the next
    ///   cache made for the app probes again (the SDK keeps even a failure for the process).
    static func defaultAccessGroup(of keychain: Keychain, trace: KeychainCallTrace?) throws(TokenCacheError) -> String {
        let prober = Prober(app: keychain.app, store: type(of: keychain.store) is AnyClass ? ObjectIdentifier(keychain.store as AnyObject) : nil)
        if let group = found.withLock({ $0[prober] }) { return group }
        let group = try probe(keychain, trace: trace)
        found.withLock { $0[prober] = group }
        return group
    }

    /// The team ID in `group`: its first `.`-separated component, or nil when that is empty.
    static func teamID(in group: String) -> String? {
        let first = group.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return first.isEmpty ? nil : first
    }

    private static func probe(_ keychain: Keychain, trace: KeychainCallTrace?) throws(TokenCacheError) -> String {
        let query = query
        func record(
            _ function: KeychainCall.Function, _ status: KeychainStatus, accessibility: Accessibility? = nil, count: Int? = nil,
            injected: InjectedFault? = nil
        ) {
            trace?.record(KeychainCall(
                function: function, account: account, service: service, accessibility: accessibility, status: status, count: count,
                injected: injected))
        }
        let readStatus: KeychainStatus
        do {
            let existing = try keychain.copyMatching(query, limit: .one, returningData: false, authenticationUI: .allow)
            record(.copyMatching, .success, count: existing.count)
            return existing[0].group
        } catch {
            record(.copyMatching, error.status, injected: error.injectedFault)
            readStatus = error.status
            guard readStatus == .itemNotFound || readStatus == .interactionNotAllowed else { throw .keychain(error) }
        }
        if readStatus == .interactionNotAllowed {
            do {
                let deleted = try keychain.delete(query)
                record(.delete, .success, count: deleted)
            } catch {
                record(.delete, error.status, injected: error.injectedFault)
                throw .keychain(error)
            }
        }
        do {
            let added = try keychain.add(NewItem(account: account, service: service, data: Data(), accessibility: .always))
            record(.add, .success, accessibility: .always)
            return added.group
        } catch {
            record(.add, error.status, accessibility: .always, injected: error.injectedFault)
            throw .keychain(error)
        }
    }
}

extension TokenCache {
    /// Whether `item` is MSAL's team-ID probe (account `SDK.ObjC.teamIDHint`, empty service, no
    /// type): the item the first cache of an app in a process finds or adds in the app's default
    /// access group, which is the shared group when that is the app's first.
    public static func isTeamIDProbe(_ item: KeychainItem) -> Bool { TeamIDProbe.isProbe(item) }
}
