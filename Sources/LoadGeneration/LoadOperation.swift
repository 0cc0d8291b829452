/// What a simulated app does in a load run.
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
    /// Delete the whole shared group: the hazard, as one call.
    case wipe
    /// Get an access token for the app's user from the MSAL cache in the group (refreshing an
    /// expired one); when a wipe took it, an emulated interactive sign-in, as an app does.
    case acquire

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
