import Foundation
import Mitigations
import SharedKeychain
import SuiteManifest

/// One app as every command, SecItem call, hazard, scenario and load worker sees it: who it is
/// (its identity, fixed when it was signed), what its manifest says (its SDK settings) and where
/// that came from. Made by one set of rules (``Device/resolve(_:)``), or declared for a run of
/// the tool's own (``init(identity:settings:origin:)``: a hazard's made-up suite).
public struct ResolvedApp: Sendable, Hashable {
    /// Where the app's identity and settings came from.
    public enum Origin: Sendable, Hashable {
        /// Installed on the device: its identity and every setting as kept at install.
        case installed
        /// An entry of a suite manifest (the file's path).
        case suite(manifest: String)
        /// Declared on the spot (a team, perhaps entitlements): nothing vouches for it.
        case adHoc
        /// Made up by a simulation of the tool's own (a hazard's suite of a fresh team).
        case simulated
    }

    public let identity: AppIdentity
    /// What its manifest says: the suite's entry, or what the device kept; nil for an ad-hoc app.
    public let settings: AppSettings?
    public let origin: Origin
    /// The app as installed, when it is (and was not named through a suite manifest).
    public let installed: InstalledApp?

    public init(identity: AppIdentity, settings: AppSettings?, origin: Origin, installed: InstalledApp? = nil) {
        self.identity = identity
        self.settings = settings
        self.origin = origin
        self.installed = installed
    }

    /// `app` as installed: its identity and every setting the device kept.
    public init(installed app: InstalledApp) {
        self.init(identity: app.identity, settings: app.settings, origin: .installed, installed: app)
    }

    /// The app an entry of a suite manifest describes, whether or not it is installed: the
    /// entry's identity and every setting it gives (``Device/resolve(_:)``'s rule for a suite
    /// entry, and a scenario's apps).
    /// - Parameter manifest: the manifest's path, which the origin names.
    public init(suiteEntry entry: SuiteApp, manifest: String) throws(SuiteManifestError) {
        self.init(identity: try entry.identity(), settings: entry.settings, origin: .suite(manifest: manifest))
    }

    public var bundleID: String { identity.bundleID }
    /// Declared on the spot: neither installed nor in a suite; audit journals mark its deletes.
    public var isAdHoc: Bool { origin == .adHoc }
}

/// The one factory of an app's keychain: an app's ``Keychain`` on the device's store (which
/// carries the device's lock state and its answer to access-control prompts, from
/// ``Device/openStore(_:timeout:logger:)``) through the group's mitigation policy. Every caller
/// that acts as an app gets its keychain here, so none can forget a part of the device.
public struct AppKeychains: Sendable {
    /// The device's store, as opened.
    public let store: any ItemStore
    /// The groups' mitigations; `.none` is Apple's behaviour.
    public let policy: MitigationPolicy
    /// The device's fault plan (``FaultPlanFile``), asked before each call of every keychain
    /// made here; nil: no faults.
    public let faults: (any KeychainFaultSource)?

    /// - Parameters:
    ///   - store: the device's store, as opened.
    ///   - policy: the groups' mitigations.
    ///   - faults: the device's fault plan; nil injects nothing.
    public init(store: any ItemStore, policy: MitigationPolicy, faults: (any KeychainFaultSource)? = nil) {
        self.store = store
        self.policy = policy
        self.faults = faults
    }

    /// The store as `app` sees it: the store itself when the policy names no group, else a
    /// ``MitigatedStore`` acting for the app (its journal entries marked ad hoc when it is).
    public func view(for app: ResolvedApp, now: @escaping @Sendable () -> Date = { Date() }) -> any ItemStore {
        guard !policy.groups.isEmpty else { return store }
        return MitigatedStore(base: store, app: app.bundleID, policy: policy, adHoc: app.isAdHoc, now: now)
    }

    /// `app`'s keychain on the device's store, under the policy.
    public func keychain(for app: ResolvedApp, now: @escaping @Sendable () -> Date = { Date() }) -> Keychain {
        Keychain(app: app.identity, store: view(for: app, now: now), now: now, faults: faults)
    }
}
