import SharedKeychain

/// A call by which one app of a suite can destroy another app's sign-in on a device: an MSAL call
/// on the shared cache, a keychain delete in the app's own code, or two apps saving at once.
///
/// The raw values are the stable IDs `suite blast-radius --json` prints; ``code`` is the letter
/// of the terminal table. Every rule lives in ``way(from:to:)``, so an SDK's own rule (ADAL's,
/// which has no `wipeCacheForAllAccounts`) is added there and nowhere else.
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
            "signout with wipeCacheForAllAccounts runs SecItemDelete({class, group}) on the app's cache group: every app's "
                + "tokens, accounts and sign-in state there go, the wipe record too; no privilege check, no trace left"
        case .wipeAccount:
            "signout with wipeAccount deletes every client's tokens and the account items of the signed-out account in the "
                + "app's cache group: every app sharing the group loses that account"
        case .removeAccount:
            "removeAccount deletes the account's tokens whose client_id is the caller's (one client ID: the other apps' "
                + "too) and the family refresh token when the caller wrote it last, and marks the account signed_out for "
                + "the client ID"
        case .ungroupedDelete:
            "a SecItemDelete that names no kSecAttrAccessGroup, in the app's own code, deletes its matches in every "
                + "group the app's entitlements reach, not only the app's own"
        case .accountMetadataRace:
            "apps of one client ID in one group share one account-metadata item (type 5001, service = client ID), "
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
            guard sdkReaches else { return nil }
            return .init(call: self, group: group,
                         reason: "deletes every item of \(group), where both keep their sign-in")
        case .wipeAccount:
            guard sdkReaches else { return nil }
            return .init(call: self, group: group,
                         reason: "deletes every client's tokens and the account items of the account in \(group)")
        case .removeAccount:
            guard sdkReaches else { return nil }
            // Credential client IDs are compared normalized (lowercased) by the accessor.
            if attacker.app.clientID.lowercased() == victim.app.clientID.lowercased() {
                return .init(call: self, group: group, reason: """
                    one client ID (\(attacker.app.clientID)): deletes the account's tokens of that client ID in \(group), \
                    which are the other app's too, and marks the account signed_out for the client ID
                    """)
            }
            guard let family = attacker.app.familyID, family == victim.app.familyID else { return nil }
            return .init(call: self, group: group, reason: """
                family \(family): deletes the family refresh token in \(group) when this app wrote it last; an app with no \
                refresh token of its own (single-FRT mode writes none) loses the account
                """)
        case .ungroupedDelete:
            guard attacker.identity.isEntitled(to: group) else { return nil }
            let how = attacker.cacheGroup == group
                ? "the group both keep their sign-in in"
                : "listed in its entitlements although its SDK uses \(attacker.cacheGroup)"
            return .init(call: self, group: group, reason: """
                its SecItemDelete without an access group also searches \(group), \(how)
                """)
        case .accountMetadataRace:
            // The item's service is the client ID exactly as passed: not lowercased.
            guard sdkReaches, attacker.app.clientID == victim.app.clientID else { return nil }
            return .init(call: self, group: group, reason: """
                one account-metadata item (type 5001, service \(attacker.app.clientID)) in \(group): saving token \
                responses at once, one app's write can drop the other's sign-in state
                """)
        }
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
