import Foundation

/// A redirect URI split the way MSAL requires it, `<scheme>://<host>[path]`, with the forms the
/// seeds describe: the MSAL default `msauth.<bundle id>://auth`, the legacy ADAL form
/// `<app-scheme>://<bundle id>`, and `https` universal links.
public struct RedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// The prefix of the MSAL default scheme, `msauth.` followed by the bundle ID.
    public static let msalSchemePrefix = "msauth."
    /// The schemes of the broker (Microsoft Authenticator) itself.
    public static let brokerSchemes = ["msauth", "msauthv2"]
    /// The schemes ADAL queries for the broker: `msauth` only (`msauthv2` is MSAL's broker
    /// protocol; the seeds' ADAL guide lists `msauth` alone).
    public static let adalBrokerSchemes = ["msauth"]

    /// The schemes an app built with `sdk` must be able to query to see the broker.
    public static func brokerSchemes(for sdk: TokenCacheSDK) -> [String] {
        sdk == .adal ? adalBrokerSchemes : brokerSchemes
    }

    /// The URI as written.
    public let rawValue: String
    /// As written; URL schemes compare without regard to case.
    public let scheme: String
    /// The part after `://`, up to the path: `auth`, or the bundle ID in the legacy form.
    public let host: String
    /// Whatever follows the host: path, query and fragment.
    public let remainder: String

    /// Parses `<scheme>://<host>...`; nil when the text has no valid scheme or an empty host.
    public init?(_ rawValue: String) {
        guard let separator = rawValue.range(of: "://") else { return nil }
        let scheme = String(rawValue[..<separator.lowerBound])
        guard Self.isValidScheme(scheme) else { return nil }
        let afterScheme = rawValue[separator.upperBound...]
        let hostEnd = afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex
        let host = String(afterScheme[..<hostEnd])
        guard !host.isEmpty else { return nil }
        self.rawValue = rawValue
        self.scheme = scheme
        self.host = host
        self.remainder = String(afterScheme[hostEnd...])
    }

    /// The URI as written.
    public var description: String { rawValue }

    /// The MSAL default for an app, `msauth.<bundle id>://auth`.
    public static func msalDefault(bundleID: String) -> String {
        "\(msalScheme(bundleID: bundleID))://auth"
    }

    /// The URL scheme of the MSAL default, `msauth.<bundle id>`, which the app declares in
    /// `CFBundleURLSchemes`.
    public static func msalScheme(bundleID: String) -> String {
        "\(msalSchemePrefix)\(bundleID)"
    }

    /// The bundle ID a redirect URI names, as the broker reads it: `msauth.<bundle>://auth`, or
    /// the legacy `<scheme>://<bundle>`; nil for anything else (universal links name no app).
    public static func bundleID(in uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme else { return nil }
        if scheme.hasPrefix(msalSchemePrefix), components.host == "auth" { return String(scheme.dropFirst(msalSchemePrefix.count)) }
        if scheme != "https", scheme != "msauth", let host = components.host, host.contains(".") { return host }
        return nil
    }

    /// The second redirect URI certificate-based authentication needs:
    /// `msauth://code/<redirect URI, URL-encoded>`.
    public static func certificateAuth(for redirectURI: String) -> String {
        // Everything but RFC 3986's unreserved characters is encoded, as in the seed's
        // example `msauth://code/x-msauth-mytestiosapp%3A%2F%2Fcom.myapp.mytestapp`.
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let encoded = redirectURI.addingPercentEncoding(withAllowedCharacters: unreserved) ?? redirectURI
        return "msauth://code/\(encoded)"
    }

    /// Whether it is a universal link: scheme `https`, not declared in `CFBundleURLSchemes`.
    public var isUniversalLink: Bool { scheme.lowercased() == "https" }

    /// Whether the scheme is the broker's own (`msauth`, `msauthv2`).
    public var usesBrokerScheme: Bool { Self.brokerSchemes.contains(scheme.lowercased()) }

    /// The bundle ID in an `msauth.<bundle id>` scheme.
    public var msalSchemeBundleID: String? {
        guard scheme.lowercased().hasPrefix(Self.msalSchemePrefix) else { return nil }
        let bundleID = scheme.dropFirst(Self.msalSchemePrefix.count)
        return bundleID.isEmpty ? nil : String(bundleID)
    }

    /// RFC 3986: a letter, then letters, digits, `+`, `-` or `.`.
    static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else { return false }
        return scheme.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }
}
