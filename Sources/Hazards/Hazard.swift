import Foundation
import Mitigations
import SharedKeychain
import Simulation

/// The built-in hazards. Each runs in this process with simulated apps sharing one
/// store (memory, or a Secret Service): as Keychain Services behaves, with the fixes a team can
/// deploy in its own apps, and (on request) with keychain features only the emulator has. Each
/// report separates what a device shows from what only the emulator knows.
public enum Hazard: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// One app wipes the whole shared token cache; another's background refresh breaks.
    case wipeAll = "wipe-all"
    /// Removing an account in one family app deletes the family refresh token a sibling needs.
    case removeAccountFamily = "remove-account-family"
    /// Two apps of one client ID read-modify-write MSAL's one account-metadata item and one
    /// app's sign-in state is lost.
    case accountMetadataRace = "account-metadata-race"
    /// An ADAL app's legacy items give an MSAL app of the same client ID single sign-on, and the
    /// MSAL app's removeAccount deletes them; only the legacy `foci-<fid>` copy survives.
    case adalMSALSSO = "adal-msal-sso"
    /// A delete that names no group empties every group the app is entitled to.
    case ungroupedDelete = "ungrouped-delete"
    /// Apps starting at once delete each other's fixed self-test probe item.
    case probeClobber = "probe-clobber"
    /// Two apps doing read-modify-write on one shared item lose each other's updates.
    case lostUpdate = "lost-update"
    /// A background launch before the first unlock after a reboot cannot read MSAL's tokens;
    /// an app's own whenUnlocked items fail whenever the phone is locked.
    case lockedDevice = "locked-device"
    /// An app presents a sibling's redirect URI to the broker: refused; the shared group needs no spoofing.
    case brokerSpoof = "broker-spoof"
    /// One app deletes the sharing group's broker key; every app waiting for the broker fails to decrypt its answer.
    case brokerKeyDelete = "broker-key-delete"
    /// Two family apps' first sign-ins race on the family refresh token: one app's save ends
    /// part-way (MSAL's `saveData`: one update, one add), and it gets its token all the same.
    case firstSignInRace = "first-sign-in-race"
    /// A launch before the first unlock reads -25308, takes it for "signed out" and signs the
    /// user out once the phone is unlocked.
    case prewarmLogout = "prewarm-logout"

    /// The name (`wipe-all`).
    public var description: String { rawValue }

    /// What the hazard shows, in one line.
    public var summary: String {
        switch self {
        case .wipeAll:
            "any app of the group calls wipeCacheForAllAccounts and every other app's sign-in is gone, with no trace on the device"
        case .removeAccountFamily:
            "removing an account in one family app deletes the family refresh token its siblings rely on (classic and single-FRT mode)"
        case .accountMetadataRace:
            "two apps of one client ID save token responses at once and one app's sign-in state is lost: a removed account comes back"
        case .adalMSALSSO:
            "an MSAL app gets single sign-on from an ADAL app's legacy items, then its removeAccount deletes the ADAL app's tokens of the same client ID; only the foci copy survives"
        case .ungroupedDelete:
            "a delete that names no access group empties every group the app is entitled to"
        case .probeClobber:
            "apps that start at once self-test on one fixed probe item and delete each other's probe"
        case .lostUpdate:
            "two apps read-modify-write one shared item without a lock and lose updates"
        case .lockedDevice:
            "a background launch between a reboot and the first unlock cannot read MSAL's afterFirstUnlockThisDeviceOnly tokens; an app's own whenUnlocked items fail whenever the phone is locked"
        case .brokerSpoof:
            "the broker refuses an app presenting a sibling's redirect URI, but the shared cache group hands the sibling's tokens over with no spoofing at all"
        case .brokerKeyDelete:
            "MSAL keeps one broker key per sharing group: one app deleting it leaves every app waiting for the broker unable to decrypt its answer"
        case .firstSignInRace:
            "two family apps sign one user in for the first time at once: one app's add of the family token loses (errSecDuplicateItem), its save stops there, and it gets its token with part of its response unwritten"
        case .prewarmLogout:
            "an app prewarmed before the first unlock reads -25308, takes it for 'signed out', and after the first unlock deletes its tokens and asks the user to sign in again"
        }
    }

    /// The hazard's mitigations, each labelled with where it lives.
    public var mitigations: [HazardMitigation] {
        switch self {
        case .wipeAll:
            [HazardMitigation("per-app access groups, single sign-on through the broker", .deployable),
             HazardMitigation("never call wipeCacheForAllAccounts from a suite app; sign out with removeAccount rather than wipeAccount", .deployable),
             HazardMitigation("guarded delete (only the app that added an item, as the emulator recorded it, or a privileged app deletes it)", .whatIf),
             HazardMitigation("keychain-side audit journal", .whatIf),
             HazardMitigation("snapshot and restore", .whatIf)]
        case .removeAccountFamily:
            [HazardMitigation("per-app access groups, single sign-on through the broker", .deployable),
             HazardMitigation("guarded delete (only the app that added an item, as the emulator recorded it, or a privileged app deletes it)", .whatIf),
             HazardMitigation("keychain-side audit journal", .whatIf)]
        case .accountMetadataRace:
            [HazardMitigation("a retry on the account-metadata race: after removeAccount, check allAccounts again (at the next launch) and remove again if the account came back", .deployable)]
        case .adalMSALSSO:
            [HazardMitigation("per-app access groups (ADAL: setDefaultKeychainGroup:nil, the app's bundle ID), single sign-on through the broker; no MSAL sign-out call spares the legacy items", .deployable),
             HazardMitigation("guarded delete (only the app that added an item, as the emulator recorded it, or a privileged app deletes it)", .whatIf),
             HazardMitigation("keychain-side audit journal", .whatIf)]
        case .ungroupedDelete:
            [HazardMitigation("name the access group in every delete query", .deployable),
             HazardMitigation("guarded delete on the shared groups", .whatIf),
             HazardMitigation("keychain-side audit journal", .whatIf)]
        case .probeClobber:
            [HazardMitigation("a probe item per app (its account includes the bundle ID)", .deployable)]
        case .lostUpdate:
            [HazardMitigation("compare-and-swap: each write is an update if-version the version read; a conflict re-reads and retries", .whatIf)]
        case .lockedDevice:
            [HazardMitigation("write your own items afterFirstUnlock; defer background work until protected data is available", .deployable)]
        case .brokerSpoof:
            [HazardMitigation("per-app access groups, single sign-on through the broker", .deployable)]
        case .brokerKeyDelete:
            [HazardMitigation("per-app access groups: each app's broker key in its own group", .deployable)]
        case .firstSignInRace:
            [HazardMitigation("one forced silent refresh after a first sign-in: the family token's response writes every item the race left out", .deployable)]
        case .prewarmLogout:
            [HazardMitigation("check isProtectedDataAvailable before reading the keychain; when false, wait for protectedDataDidBecomeAvailable; never take -25308 for 'signed out'", .deployable)]
        }
    }

    /// The hazard's mitigations of `scope`.
    public func mitigations(_ scope: MitigationScope) -> [HazardMitigation] { mitigations.filter { $0.scope == scope } }

    /// The runs there are: unmitigated, then the deployable fix when the hazard has one, then
    /// the what-if run when `whatIf` and the hazard has emulator-only mitigations.
    public func variants(whatIf: Bool) -> [HazardVariant] {
        HazardVariant.allCases.filter { variant in
            guard let scope = variant.scope else { return true }
            return (scope == .deployable || whatIf) && !mitigations(scope).isEmpty
        }
    }

    private func required(_ device: (any DeviceControl)?) throws(HazardError) -> any DeviceControl {
        guard let device else { throw .needsDevice(self) }
        return device
    }

    /// Whether the hazard locks and unlocks the device (and so needs a ``DeviceControl``).
    public var needsDevice: Bool { self == .lockedDevice || self == .prewarmLogout }

    /// Runs the hazard on `store`.
    /// - Parameters:
    ///   - variant: which mitigations are on.
    ///   - device: the device around `store`, for hazards that lock it (``needsDevice``); the
    ///     store must obey its lock.
    /// - Throws: ``HazardError`` when the hazard has no mitigation of the variant or needs a
    ///   device; otherwise only unexpected failures of the store or the token cache: the
    ///   hazard's own failures are what the report counts.
    public func run(_ variant: HazardVariant, on store: any ItemStore, device: (any DeviceControl)? = nil) throws -> HazardReport {
        if let scope = variant.scope, mitigations(scope).isEmpty { throw HazardError.noMitigation(self, variant) }
        var report = try play(variant, on: store, device: device)
        report.mitigations = variant.scope.map(mitigations) ?? []
        return report
    }

    /// The hazard's own run, by case.
    private func play(_ variant: HazardVariant, on store: any ItemStore, device: (any DeviceControl)?) throws -> HazardReport {
        switch self {
        case .wipeAll: try WipeAllHazard(store: store, variant: variant).run()
        case .removeAccountFamily: try RemoveAccountFamilyHazard(store: store, variant: variant).run()
        case .accountMetadataRace: try AccountMetadataRaceHazard(store: store, variant: variant).run()
        case .adalMSALSSO: try ADALMSALSSOHazard(store: store, variant: variant).run()
        case .ungroupedDelete: try UngroupedDeleteHazard(store: store, variant: variant).run()
        case .probeClobber: try ProbeClobberHazard(store: store, mitigated: variant != .unmitigated).run()
        case .lostUpdate: try LostUpdateHazard(store: store, mitigated: variant != .unmitigated).run()
        case .lockedDevice: try LockedDeviceHazard(store: store, variant: variant, device: required(device)).run()
        case .brokerSpoof: try BrokerSpoofHazard(store: store, mitigated: variant != .unmitigated).run()
        case .brokerKeyDelete: try BrokerKeyDeleteHazard(store: store, mitigated: variant != .unmitigated).run()
        case .firstSignInRace: try FirstSignInRaceHazard(store: store, variant: variant).run()
        case .prewarmLogout: try PrewarmLogoutHazard(store: store, variant: variant, device: required(device)).run()
        }
    }

    /// The runs of ``variants(whatIf:)``, in order, each on its own freshly made-up team.
    public func compare(on store: any ItemStore, device: (any DeviceControl)? = nil, whatIf: Bool = false) throws -> HazardComparison {
        HazardComparison(hazard: self, runs: try variants(whatIf: whatIf).map { try run($0, on: store, device: device) })
    }
}

/// A hazard that cannot run as asked.
public enum HazardError: Error, Sendable, CustomStringConvertible {
    /// The hazard locks the device, and no device was given.
    case needsDevice(Hazard)
    /// The hazard has no mitigation of the variant's scope.
    case noMitigation(Hazard, HazardVariant)

    public var description: String {
        switch self {
        case .needsDevice(let hazard): "the \(hazard) hazard locks the device: run it with a device (the CLI's state directory)"
        case .noMitigation(let hazard, let variant):
            "the \(hazard) hazard has no \(variant) mitigation; its runs are \(hazard.variants(whatIf: true).map(\.rawValue).joined(separator: ", "))"
        }
    }
}
