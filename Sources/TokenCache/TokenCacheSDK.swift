/// The Microsoft SDK an app of the group is built with. Both keep their tokens in the same
/// keychain group through IdentityCore; they differ in what they write and read there.
public enum TokenCacheSDK: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// MSAL for iOS: MSAL's items (IdentityCore's default accessor), reading ADAL's legacy
    /// items as a fallback (the legacy accessor, `otherCacheAccessors`).
    case msal
    /// ADAL for iOS: ADAL's legacy items (`MSOpenTech.ADAL.1`, keyed archives; IdentityCore's
    /// legacy accessor), and beside them the MSAL-format refresh tokens, app metadata and
    /// account, so MSAL apps get single sign-on from an ADAL sign-in.
    case adal

    /// `msal` or `adal`.
    public var description: String { rawValue }

    /// The SDK named `text` (`msal`, `adal`, any case); nil for anything else.
    public init?(named text: String) {
        self.init(rawValue: text.trimmingWhitespace.lowercased())
    }
}
