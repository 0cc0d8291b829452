/// What a simulated app does in a load run. The ``LoadConfiguration/Workload`` decides which
/// operations a mix may name.
public enum LoadOperation: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable, Comparable {
    /// Read one item (any app's) by account and service.
    case read
    /// Write one of the app's own items: update, or add when absent (as the MSAL SDKs write).
    case write
    /// Update one of the app's own items; nothing there is an expected errSecItemNotFound.
    case update
    /// Delete one of the app's own items.
    case remove
    /// List every item of the shared group, data included.
    case list
    /// Delete the whole shared group: the hazard, as one call. In the token workload, MSAL's
    /// `wipeCacheForAllAccounts` (the whole group, then the wipe record).
    case wipe
    /// Get an access token for one of the app's users from the MSAL cache in the group. In the
    /// items workload a wipe that took it is followed by a sign-in; in the token workload it is
    /// silent only, and `interaction_required` is an expected outcome.
    case acquire
    /// Token workload: an emulated interactive sign-in of one of the app's own users.
    case signin
    /// Token workload: a silent acquisition that skips cached access tokens and redeems the
    /// refresh token (MSAL's `forceRefresh`).
    case refresh
    /// Token workload: MSAL's `removeAccount` for one of the app's own users.
    case removeAccount = "remove-account"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
