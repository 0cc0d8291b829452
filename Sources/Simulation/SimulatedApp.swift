import Device
import Foundation
import Mitigations
import SharedKeychain
import TokenCache

/// One simulated app, as hazards, scenarios and load workers all make it: a ``ResolvedApp``, its
/// keychain made by the one factory (``AppKeychains``: the device's store, which carries the
/// device's lock and authentication answer, through the group's mitigation policy), its MSAL
/// token cache when it has one, and the clock both read.
public struct SimulatedApp: Sendable {
    /// Who the app is and what its manifest says.
    public let app: ResolvedApp
    /// The app's keychain, on its view of the store.
    public let keychain: Keychain
    /// The store as the app sees it: the device's store, or a ``MitigatedStore`` acting for the
    /// app when the policy names a group.
    public let view: any ItemStore
    /// The app's token cache, or nil when it was made without one.
    public let tokens: TokenCache?
    /// The clock of the app's keychain and token cache.
    public let clock: SimulationClock

    /// - Parameters:
    ///   - app: the app.
    ///   - keychains: the device's store and the groups' mitigation policy.
    ///   - clock: the clock of the app's items and tokens.
    ///   - tokens: the app's MSAL configuration, or nil for an app without a token cache; for
    ///     the one its manifest gives, ``ResolvedApp/manifestTokenConfiguration``.
    /// - Throws: ``TokenCacheError`` when the token cache cannot be made (an unusable
    ///   configuration, or MSAL's team-ID probe failing).
    public init(
        _ app: ResolvedApp, keychains: AppKeychains, clock: SimulationClock, tokens: TokenCacheConfiguration? = nil
    ) throws(TokenCacheError) {
        self.app = app
        self.clock = clock
        let view = keychains.view(for: app, now: clock.function)
        self.view = view
        let keychain = Keychain(app: app.identity, store: view, now: clock.function, faults: keychains.faults)
        self.keychain = keychain
        self.tokens = try tokens.map { configuration throws(TokenCacheError) in
            try TokenCache(keychain: keychain, configuration: configuration, now: clock.function)
        }
    }

    public var bundleID: String { app.bundleID }

    /// The app's token cache.
    /// - Throws: ``TokenCacheError/invalidArgument(_:)`` when the app was made without one.
    public func tokenCache() throws(TokenCacheError) -> TokenCache {
        guard let tokens else { throw .invalidArgument("the simulated app \(bundleID) has no token cache") }
        return tokens
    }

    /// The delete refusal `error` stands for, when the app's mitigation policy refused a delete.
    public func refusal(for error: any Error) -> DeleteRefusal? {
        (view as? MitigatedStore)?.refusal(for: error)
    }

    /// Every delete the app's mitigation policy refused so far.
    public var refusals: [DeleteRefusal] { (view as? MitigatedStore)?.refusalLog ?? [] }
}

extension ResolvedApp {
    /// The token cache the app's manifest configures (client ID, cache group, family, SDK), or
    /// nil for an app no manifest describes.
    public var manifestTokenConfiguration: TokenCacheConfiguration? { settings?.tokenCacheConfiguration() }
}
