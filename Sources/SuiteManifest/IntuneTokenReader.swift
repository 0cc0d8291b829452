import Foundation
import SharedKeychain
import TokenCache

/// Looks up a user's token where the Intune App SDK looks for it when it enrols the user: in
/// the app's token cache in `com.microsoft.adalcache`, or in the group
/// `ADALCacheKeychainGroupOverride` names, read with the app's own entitlements and client ID.
/// A cache MSAL keeps elsewhere is invisible to it, whatever the app itself sees.
public enum IntuneTokenReader {
    /// What the SDK finds for `username` in the group `intune` names, reading as the app whose
    /// keychain and MSAL configuration are given (only the configuration's group is replaced).
    ///
    /// - Parameters:
    ///   - username: the user being enrolled (compared without regard to case, as UPNs are).
    ///   - intune: the app's `IntuneMAMSettings`.
    ///   - keychain: the app's keychain on the device: its entitlements decide whether the group
    ///     can be read at all.
    ///   - configuration: the app's token cache configuration (client ID, family, authority).
    ///   - now: the clock for the token cache.
    /// - Returns: found, not found, or errSecMissingEntitlement (-34018), as the device answers.
    /// - Throws: ``TokenCache/TokenCacheError`` for any other failure of the read (a locked
    ///   device's errSecInteractionNotAllowed, an unavailable keyring, ...).
    public static func lookUp(
        username: String, intune: IntuneSettings, keychain: Keychain, configuration: TokenCacheConfiguration,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(TokenCacheError) -> IntuneTokenLookup {
        var intuneConfiguration = configuration
        intuneConfiguration.keychainSharingGroup = intune.cacheGroupName
        let group = intuneConfiguration.accessGroup(for: keychain.app)
        func lookup(_ outcome: IntuneTokenLookup.Outcome) -> IntuneTokenLookup {
            IntuneTokenLookup(app: keychain.app.bundleID, username: username, group: group,
                              overridden: intune.cacheGroupOverride != nil, outcome: outcome)
        }
        let states: [AccountState]
        do {
            states = try TokenCache(keychain: keychain, configuration: intuneConfiguration, now: now).accountStates()
        } catch {
            guard case .keychain(let keychainError) = error, keychainError.status == .missingEntitlement else { throw error }
            return lookup(.missingEntitlement(message: keychainError.message))
        }
        let wanted = username.lowercased()
        guard let state = states.first(where: { $0.username.lowercased() == wanted }) else {
            return lookup(.notFound(reason: "no account '\(DisplayText(username))' in \(group)"))
        }
        guard state.hasRefreshToken else {
            return lookup(.notFound(reason: "'\(DisplayText(username))' has an account in \(group) but no refresh token this client can use"))
        }
        return lookup(.found(homeAccountID: state.homeAccountID))
    }
}

/// What the Intune App SDK found when it looked up a user's token for an app.
public struct IntuneTokenLookup: Sendable, Hashable {
    /// The answer a device gives the SDK's read.
    public enum Outcome: Sendable, Hashable {
        /// The user's account and a refresh token the app's client may use: enrolment gets its
        /// token without a prompt.
        case found(homeAccountID: String)
        /// No usable token for the user in the group (errSecItemNotFound for the SDK's query);
        /// `reason` says what is missing.
        case notFound(reason: String)
        /// The app is not entitled to the group: the read fails with errSecMissingEntitlement
        /// (-34018), `message` as the device words it.
        case missingEntitlement(message: String)
    }

    /// The app's bundle ID.
    public let app: String
    /// The user looked up, as given.
    public let username: String
    /// The group read, with the team prefix.
    public let group: String
    /// Whether `ADALCacheKeychainGroupOverride` named the group (else it is the default).
    public let overridden: Bool
    /// What the read found.
    public let outcome: Outcome

    /// errSecSuccess when found, errSecItemNotFound (-25300) when not, errSecMissingEntitlement
    /// (-34018) when the app may not read the group.
    public var status: KeychainStatus {
        switch outcome {
        case .found: .success
        case .notFound: .itemNotFound
        case .missingEntitlement: .missingEntitlement
        }
    }

    /// What the SDK's `registerAndEnrollAccount` reports when it finds no token (its issue
    /// threads, ms-intune-app-sdk-ios #39, #89, #539).
    public static let enrolmentFailure =
        "registerAndEnrollAccount fails with enrollmentRequest failure 203 (the SDK could not access the user's AAD token)"

    /// One line: `Intune (com.contoso.mail) reads ABCDE12345.com.microsoft.adalcache (the
    /// default): found alice@contoso.com` and the like.
    public var summary: String {
        let source = overridden ? IntuneSettings.cacheGroupOverrideKey : "the default; no \(IntuneSettings.cacheGroupOverrideKey)"
        let head = "Intune (\(DisplayText(app))) reads \(DisplayText(group)) (\(source)): "
        switch outcome {
        case .found(let homeAccountID):
            return head + "found '\(DisplayText(username))' (\(DisplayText(homeAccountID))) with a refresh token; enrolment can get its token"
        case .notFound(let reason):
            return head + "\(status.name) (\(status.rawValue)): \(reason); \(Self.enrolmentFailure)"
        case .missingEntitlement(let message):
            let sentence = message.hasSuffix(".") ? String(message.dropLast()) : message
            return head + "\(status.name) (\(status.rawValue)): \(sentence); \(Self.enrolmentFailure)"
        }
    }
}

extension IntuneTokenLookup: Encodable {
    private enum CodingKeys: String, CodingKey {
        case app, username, group, overridden, found, status, code, homeAccountID = "home_account_id", message
    }

    /// `{"app", "username", "group", "overridden", "found", "status", "code",
    /// "home_account_id", "message"}`; `status` is the name (`errSecItemNotFound`), `code` the
    /// number, `home_account_id` null unless found.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(username, forKey: .username)
        try container.encode(group, forKey: .group)
        try container.encode(overridden, forKey: .overridden)
        try container.encode(status == .success, forKey: .found)
        try container.encode(status.name, forKey: .status)
        try container.encode(status.rawValue, forKey: .code)
        if case .found(let homeAccountID) = outcome {
            try container.encode(homeAccountID, forKey: .homeAccountID)
        } else {
            try container.encodeNil(forKey: .homeAccountID)
        }
        try container.encode(summary, forKey: .message)
    }
}

extension IntuneTokenLookup: TextReport {
    /// ``summary`` as one line.
    public var text: String { summary + "\n" }
}
