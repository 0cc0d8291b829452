import Foundation
import SharedKeychain

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
    public static func brokerSchemes(for sdk: IdentitySDK) -> [String] {
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
        "\(msalSchemePrefix)\(bundleID)://auth"
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

extension SuiteChecker {
    /// The redirect URI's form, the bundle ID it names, and its scheme's registration.
    mutating func checkRedirectURI(of app: SuiteApp) {
        let text = app.redirectURI
        guard let uri = RedirectURI(text) else {
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' is not of the form <scheme>://<host>: MSAL refuses it when the app creates its \
                client application; use \(RedirectURI.msalDefault(bundleID: app.bundleID))
                """)
            return
        }
        if uri.usesBrokerScheme {
            let hint = uri.rawValue.lowercased().hasPrefix("msauth://code/")
                ? " ('\(DisplayText(text))' is the certificate-based-auth URI: declare it as certificate_auth_redirect_uri)" : ""
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' uses the broker's own scheme '\(DisplayText(uri.scheme))'\(hint); the app's redirect URI must use \
                a scheme of its own, like \(RedirectURI.msalDefault(bundleID: app.bundleID))
                """)
            return
        }
        switch uri.scheme.lowercased() {
        case "https":
            report(.info, .redirectURIUniversalLink, app, """
                redirect URI '\(DisplayText(text))' is a universal link: it is not declared in CFBundleURLSchemes; the app's Associated \
                Domains must include \(uri.host), and the app must pass the URL it is opened with to \
                MSALPublicClientApplication.handleMSALResponse(_:sourceApplication:)
                """)
            return
        case "http":
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' uses http, which is neither a custom URL scheme nor a universal link (https)
                """)
            return
        default:
            break
        }
        guard checkNamedBundle(of: app, uri) else { return }
        checkSchemeRegistration(of: app, uri)
    }

    /// Checks the bundle ID the redirect URI names, in `msauth.<bundle id>://auth` or the legacy
    /// `<scheme>://<bundle id>`; false when it names another app, so scheme advice would mislead.
    private mutating func checkNamedBundle(of app: SuiteApp, _ uri: RedirectURI) -> Bool {
        let own = RedirectURI.msalDefault(bundleID: app.bundleID)
        let named = uri.msalSchemeBundleID ?? uri.host
        if named.lowercased() == app.bundleID.lowercased() {
            // For an ADAL app the legacy form is the SDK's own: nothing to say.
            if uri.msalSchemeBundleID == nil {
                if app.sdk == .msal {
                    report(.info, .redirectURILegacy, app, """
                        redirect URI '\(DisplayText(uri.rawValue))' has the legacy ADAL form <scheme>://<bundle id>, which still works with MSAL; \
                        the MSAL default is \(own)
                        """)
                }
            } else if uri.host != "auth" || !uri.remainder.isEmpty {
                report(.warning, .redirectURIForm, app, """
                    redirect URI '\(DisplayText(uri.rawValue))' is not the MSAL default \(own); use the default unless a scenario needs another
                    """)
            }
            return true
        }
        if let other = others(than: app).first(where: { $0.bundleID.lowercased() == named.lowercased() }) {
            report(.error, .redirectURIOtherApp, app, """
                redirect URI '\(DisplayText(uri.rawValue))' names \(other.displayName), not this app: the broker gets the calling app's bundle ID \
                from iOS and denies tokens when it does not match the bundle ID of the redirect URI registered; use \(own)
                """)
            return false
        }
        if uri.msalSchemeBundleID != nil {
            report(.error, .redirectURIBundleMismatch, app, """
                redirect URI '\(DisplayText(uri.rawValue))' names bundle ID '\(DisplayText(named))', but the app's is '\(DisplayText(app.bundleID))': the broker denies tokens \
                when the caller's bundle ID does not match the registered redirect URI; use \(own)
                """)
            return false
        }
        // A custom scheme whose host is not a bundle ID: fine for MSAL alone, not for the broker.
        report(app.usesBroker ? .error : .warning, .redirectURIForm, app, """
            redirect URI '\(DisplayText(uri.rawValue))' does not contain the app's bundle ID: \(app.usesBroker ? "the broker" : "a broker, if the app ever uses one,") \
            only returns tokens to msauth.<bundle id>://auth or <scheme>://<bundle id>; use \(own)
            """)
        return true
    }

    /// A custom scheme must be in the app's `CFBundleURLSchemes`, and should be in no sibling's.
    private mutating func checkSchemeRegistration(of app: SuiteApp, _ uri: RedirectURI) {
        let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
        if !plist.registers(scheme: uri.scheme) {
            report(.error, .redirectSchemeRegistered, app, """
                scheme '\(DisplayText(uri.scheme))' of redirect URI '\(DisplayText(uri.rawValue))' is not in CFBundleURLTypes > CFBundleURLSchemes of \
                \(app.infoPlistSource): MSAL checks it and returns an error at runtime
                """)
        }
        let claimants = others(than: app).filter {
            $0.infoPlist.resolvingBuildVariables(bundleID: $0.bundleID).registers(scheme: uri.scheme)
        }
        if !claimants.isEmpty {
            report(.warning, .urlSchemeUnique, app, """
                scheme '\(DisplayText(uri.scheme))' is also registered by \(claimants.bundleIDList): iOS does not enforce unique URL \
                schemes and does not define which app opens a shared one, so a sign-in response may reach the wrong app
                """)
        }
    }

    /// What an Info.plist gets wrong on its own.
    mutating func checkInfoPlist(of app: SuiteApp) {
        let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
        for scheme in plist.urlSchemes where ["https", "http"].contains(scheme.lowercased()) {
            report(.warning, .universalLinkNotAScheme, app, """
                '\(DisplayText(scheme))' is listed in CFBundleURLSchemes of \(app.infoPlistSource): universal links are not declared \
                there but through Associated Domains
                """)
        }
        if let declared = plist.bundleIdentifier, !declared.contains("$("), !declared.contains("${"),
           declared.lowercased() != app.bundleID.lowercased() {
            report(.error, .infoPlistBundleID, app, """
                \(app.infoPlistSource) has CFBundleIdentifier '\(DisplayText(declared))', not '\(DisplayText(app.bundleID))': the manifest references \
                another app's Info.plist, so its URL schemes are not this app's
                """)
        }
    }
}
