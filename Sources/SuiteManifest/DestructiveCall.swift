import SharedKeychain

/// A call by which one app of a suite can destroy another app's sign-in on a device: an MSAL call
/// on the shared cache, a keychain delete in the app's own code, or two apps saving at once.
///
/// The raw values are the stable IDs `suite blast-radius --json` prints; ``code`` is the letter
/// of the terminal table. Every rule lives in ``way(from:to:)`` (and the `removeAccount` helper it
/// calls), SDK differences included: ADAL has no `wipeCacheForAllAccounts`, its
/// `wipeAllItemsForUserId` is a ``wipeAccount``, its `removeAllForUserId:clientId:` a
/// ``removeAccount``, and it keeps no account metadata.
public enum DestructiveCall: String, Sendable, Codable, CaseIterable {
    /// `signoutWithAccount` with `wipeCacheForAllAccounts`: one `SecItemDelete({class, group})`.
    case wipeCacheForAllAccounts = "wipe-cache-for-all-accounts"
    /// `signoutWithAccount` with `wipeAccount`: every client's tokens of the account.
    case wipeAccount = "wipe-account"
    /// `removeAccount`: this client ID's tokens of the account, the family token it wrote last.
    case removeAccount = "remove-account"
    /// A `SecItemDelete` in the app's own code that names no `kSecAttrAccessGroup`.
    case ungroupedDelete = "ungrouped-delete"
    /// Two apps of one client ID saving token responses at once: a lost update of the one
    /// account-metadata item (type 5001) they share.
    case accountMetadataRace = "account-metadata-race"

    /// The letter the terminal table shows for the call.
    public var code: String {
        switch self {
        case .wipeCacheForAllAccounts: "W"
        case .wipeAccount: "A"
        case .removeAccount: "R"
        case .ungroupedDelete: "D"
        case .accountMetadataRace: "M"
        }
    }

    /// The call as an iOS developer writes it.
    public var api: String {
        switch self {
        case .wipeCacheForAllAccounts: "wipeCacheForAllAccounts"
        case .wipeAccount: "wipeAccount"
        case .removeAccount: "removeAccount"
        case .ungroupedDelete: "ungrouped SecItemDelete"
        case .accountMetadataRace: "account-metadata race"
        }
    }

    /// What the call does on a device, in one sentence, from IdentityCore's source.
    public var summary: String {
        switch self {
        case .wipeCacheForAllAccounts:
            "MSAL's signout with wipeCacheForAllAccounts runs SecItemDelete({class, group}) on the app's cache group: every "
                + "app's tokens, accounts and sign-in state there go, the wipe record too; no privilege check, no trace left "
                + "(ADAL has no such call)"
        case .wipeAccount:
            "signout with wipeAccount (ADAL: wipeAllItemsForUserId) deletes every client's tokens of the signed-out account "
                + "in the app's cache group, ADAL's legacy items and their foci copies included: every app sharing the group "
                + "loses that account"
        case .removeAccount:
            "removeAccount (ADAL: removeAllForUserId:clientId:) deletes the account's tokens whose client_id is the caller's "
                + "(one client ID: the other apps' too, ADAL's legacy items of that client ID among them, but not their "
                + "foci-<fid> copy) and the family refresh token when the caller wrote it last; MSAL also marks the account "
                + "signed_out for the client ID"
        case .ungroupedDelete:
            "a SecItemDelete that names no kSecAttrAccessGroup, in the app's own code, deletes its matches in every "
                + "group the app's entitlements reach, not only the app's own"
        case .accountMetadataRace:
            "MSAL apps of one client ID in one group share one account-metadata item (type 5001, service = client ID), "
                + "read-modify-written without a lock on every token response and removal: one app's save can drop the "
                + "other's sign-in state"
        }
    }

    /// Whether `attacker` can destroy `victim`'s sign-in by this call, and if so, in which group
    /// and why; nil when it cannot. `attacker` and `victim` are different apps.
    func way(from attacker: BlastSubject, to victim: BlastSubject) -> BlastRadius.Way? {
        // The victim has no sign-in to lose when its SDK cannot use its group (-34018).
        guard victim.signsIn else { return nil }
        let group = victim.cacheGroup
        // The SDK's calls act on the caller's own cache group, and only when it is entitled to it.
        let sdkReaches = attacker.signsIn && attacker.cacheGroup == group
        switch self {
        case .wipeCacheForAllAccounts:
            // ADAL's public cache API (ADALKeychainTokenCache.h) has no whole-group delete; its
            // widest is wipeAllItemsForUserId, one user's items (A).
            guard sdkReaches, attacker.app.sdk == .msal else { return nil }
            return .init(call: self, group: group,
                         reason: "deletes every item of \(DisplayText(group)), where both keep their sign-in")
        case .wipeAccount:
            guard sdkReaches else { return nil }
            if attacker.app.sdk == .adal {
                // ADAL's wipeAllItemsForUserId is the legacy accessor's clearCacheForAccount with no
                // client ID (ADALMSIDDataSourceWrapper removeAllForUserIdImpl).
                return .init(call: self, group: group, reason: """
                    ADAL's wipeAllItemsForUserId: deletes every client's legacy items of the user in \(DisplayText(group)), foci copies \
                    included, and every client's MSAL-format tokens of the user
                    """)
            }
            return .init(call: self, group: group,
                         reason: "deletes every client's tokens and the account items of the account in \(DisplayText(group))")
        case .removeAccount:
            guard sdkReaches else { return nil }
            return removeAccountWay(from: attacker, to: victim, in: group)
        case .ungroupedDelete:
            guard attacker.identity.isEntitled(to: group) else { return nil }
            let how = attacker.cacheGroup == group
                ? "the group both keep their sign-in in"
                : "listed in its entitlements although its SDK uses \(DisplayText(attacker.cacheGroup))"
            return .init(call: self, group: group, reason: """
                its SecItemDelete without an access group also searches \(DisplayText(group)), \(how)
                """)
        case .accountMetadataRace:
            // The item's service is the client ID exactly as passed: not lowercased. ADAL neither
            // writes nor reads it (no sign-in state), so both apps must be MSAL apps.
            guard sdkReaches, attacker.app.clientID == victim.app.clientID, attacker.app.sdk == .msal, victim.app.sdk == .msal
            else { return nil }
            return .init(call: self, group: group, reason: """
                one account-metadata item (type 5001, service \(DisplayText(attacker.app.clientID))) in \(DisplayText(group)): saving token \
                responses at once, one app's write can drop the other's sign-in state
                """)
        }
    }
}

extension DestructiveCall {
    /// `removeAccount` (MSAL) or `removeAllForUserId:clientId:` (ADAL): both run IdentityCore's
    /// `clearCacheForAccount` with the caller's client ID, which deletes that client's
    /// credentials and ADAL's legacy items of that client ID for the user's UPN; the legacy
    /// `foci-<fid>` copy is another client ID and survives (`MSIDLegacyTokenCacheAccessor`).
    fileprivate func removeAccountWay(from attacker: BlastSubject, to victim: BlastSubject, in group: String) -> BlastRadius.Way? {
        // Credential client IDs are compared normalized (lowercased) by the accessor.
        let sameClient = attacker.app.clientID.lowercased() == victim.app.clientID.lowercased()
        let caller = attacker.app.sdk == .adal ? "ADAL's removeAllForUserId:clientId:, " : ""
        if victim.app.sdk == .adal {
            // An ADAL app refreshes with its own legacy token, then the family's legacy copy,
            // which its own sign-in wrote: only a client ID with no family loses its sign-in.
            guard sameClient, victim.app.familyID == nil else { return nil }
            return .init(call: .removeAccount, group: group, reason: """
                \(caller)one client ID (\(DisplayText(attacker.app.clientID))), no family: deletes the ADAL app's legacy items of that client \
                ID for the user in \(DisplayText(group)), and no foci copy is left to refresh with
                """)
        }
        if sameClient {
            let signedOut = attacker.app.sdk == .msal ? ", and marks the account signed_out for the client ID" : ""
            return .init(call: .removeAccount, group: group, reason: """
                \(caller)one client ID (\(DisplayText(attacker.app.clientID))): deletes the account's tokens of that client ID in \(DisplayText(group)), \
                which are the other app's too\(signedOut)
                """)
        }
        guard let family = attacker.app.familyID, family == victim.app.familyID else { return nil }
        return .init(call: .removeAccount, group: group, reason: """
            \(caller)family \(DisplayText(family)): deletes the family refresh token in \(DisplayText(group)) when this app wrote it last; an app with no \
            refresh token of its own (single-FRT mode writes none) loses the account
            """)
    }
}

/// An app of a suite as the blast-radius rules see it: its configuration and the groups its
/// entitlements reach.
struct BlastSubject {
    let app: SuiteApp
    let identity: AppIdentity

    /// - Throws: ``SuiteManifestError/entitlements(_:_:)`` for unusable entitlements.
    init(_ app: SuiteApp) throws(SuiteManifestError) {
        self.app = app
        identity = try app.identity()
    }

    /// The group the SDK keeps the app's sign-in in, as stored in `kSecAttrAccessGroup`.
    var cacheGroup: String { app.keychainGroup.rawValue }

    /// Whether the SDK can use its group at all; without the entitlement every call fails with
    /// errSecMissingEntitlement (-34018), so the app has no sign-in and destroys none through it.
    var signsIn: Bool { identity.isEntitled(to: cacheGroup) }
}
