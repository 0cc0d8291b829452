import Foundation
import Mitigations
import SharedKeychain

/// The built-in hazard scenarios. Each runs in this process with simulated apps sharing one
/// store (memory, or a Secret Service), once as Keychain Services behaves and once with
/// mitigations, and reports what each app lost and who caused it.
public enum Hazard: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// One app wipes the whole shared token cache; another's background refresh breaks.
    case wipeAll = "wipe-all"
    /// Removing an account in one family app deletes the family refresh token a sibling needs.
    case removeAccountFamily = "remove-account-family"
    /// A delete that names no group empties every group the app is entitled to.
    case ungroupedDelete = "ungrouped-delete"
    /// Apps starting at once delete each other's fixed self-test probe item.
    case probeClobber = "probe-clobber"
    /// Two apps doing read-modify-write on one shared item lose each other's updates.
    case lostUpdate = "lost-update"
    /// A background refresh while the phone is locked cannot read whenUnlocked tokens.
    case lockedDevice = "locked-device"
    /// An app presents a sibling's redirect URI to the broker: refused; the shared group needs no spoofing.
    case brokerSpoof = "broker-spoof"

    /// The name (`wipe-all`).
    public var description: String { rawValue }

    /// What the hazard shows, in one line.
    public var summary: String {
        switch self {
        case .wipeAll:
            "any app of the group calls wipeCacheForAllAccounts and every other app's sign-in is gone"
        case .removeAccountFamily:
            "removing an account in one family app deletes the family refresh token its siblings rely on"
        case .ungroupedDelete:
            "a delete that names no access group empties every group the app is entitled to"
        case .probeClobber:
            "apps that start at once self-test on one fixed probe item and delete each other's probe"
        case .lostUpdate:
            "two apps read-modify-write one shared item without a lock and lose updates"
        case .lockedDevice:
            "a background refresh while the phone is locked fails with errSecInteractionNotAllowed when the tokens are whenUnlocked (MSAL's own are afterFirstUnlockThisDeviceOnly: they fail only before the first unlock after a reboot)"
        case .brokerSpoof:
            "the broker refuses an app presenting a sibling's redirect URI, but the shared cache group hands the sibling's tokens over with no spoofing at all"
        }
    }

    /// What the mitigated run does differently.
    public var mitigation: String {
        switch self {
        case .wipeAll: "guarded delete (only the creator or a privileged app deletes), audit journal, snapshot and restore"
        case .removeAccountFamily: "guarded delete, audit journal"
        case .ungroupedDelete: "guarded delete on the shared groups, audit journal"
        case .probeClobber: "a probe item per app (its account includes the bundle ID)"
        case .lostUpdate: "compare-and-swap: each write is an update if-version the version read; a conflict re-reads and retries"
        case .lockedDevice: "the cache writes its tokens afterFirstUnlock"
        case .brokerSpoof: "each app keeps its tokens in its own app-ID group; single sign-on goes through the broker"
        }
    }

    private func required(_ device: (any DeviceControl)?) throws(HazardError) -> any DeviceControl {
        guard let device else { throw .needsDevice(self) }
        return device
    }

    /// Whether the hazard locks and unlocks the device (and so needs a ``DeviceControl``).
    public var needsDevice: Bool { self == .lockedDevice }

    /// Runs the scenario on `store`.
    /// - Parameters:
    ///   - mitigated: whether the mitigations are on.
    ///   - device: the device around `store`, for hazards that lock it (``needsDevice``); the
    ///     store must obey its lock.
    /// - Throws: only unexpected failures of the store or the token cache; the hazard's own
    ///   failures are what the report counts.
    public func run(mitigated: Bool, on store: any ItemStore, device: (any DeviceControl)? = nil) throws -> HazardReport {
        switch self {
        case .wipeAll: try WipeAllScenario(store: store, mitigated: mitigated).run()
        case .removeAccountFamily: try RemoveAccountFamilyScenario(store: store, mitigated: mitigated).run()
        case .ungroupedDelete: try UngroupedDeleteScenario(store: store, mitigated: mitigated).run()
        case .probeClobber: try ProbeClobberScenario(store: store, mitigated: mitigated).run()
        case .lostUpdate: try LostUpdateScenario(store: store, mitigated: mitigated).run()
        case .lockedDevice: try LockedDeviceScenario(store: store, mitigated: mitigated, device: required(device)).run()
        case .brokerSpoof: try BrokerSpoofScenario(store: store, mitigated: mitigated).run()
        }
    }

    /// Both runs, unmitigated first, each on its own freshly made-up team.
    public func compare(on store: any ItemStore, device: (any DeviceControl)? = nil) throws -> HazardComparison {
        HazardComparison(
            hazard: self, unmitigated: try run(mitigated: false, on: store, device: device),
            mitigated: try run(mitigated: true, on: store, device: device))
    }
}

/// A hazard that cannot run as asked.
public enum HazardError: Error, Sendable, CustomStringConvertible {
    /// The hazard locks the device, and no device was given.
    case needsDevice(Hazard)

    public var description: String {
        switch self {
        case .needsDevice(let hazard): "the \(hazard) hazard locks the device: run it with a device (the CLI's state directory)"
        }
    }
}

/// What one run of a hazard did: the steps, what each app lost and who caused it, the numbers
/// that decide the outcome, the audit trail, and what the mitigations do not prevent.
/// Holds no secret: tokens and item data never enter a report.
public struct HazardReport: Sendable, Hashable, Codable {
    /// The hazard's name (`wipe-all`).
    public var hazard: String
    /// Whether the mitigations were on.
    public var mitigated: Bool
    /// The mitigations in force (`guarded-delete`, `audit`, `snapshot`, `per-app-items`...).
    public var mitigations: [String]
    /// The store the simulated apps shared (`memory`, `secret-service`).
    public var store: String
    /// The group(s) the scenario used.
    public var groups: [String]
    /// What happened, in order, one line each.
    public var steps: [String]
    /// Per app: how many of its items were deleted, and by whom.
    public var losses: [AppLoss]
    /// The numbers the outcome rests on (`failed refreshes`, `lost updates`...).
    public var metrics: [Metric]
    /// The journal of the audited group, when audit was on.
    public var audit: [AuditEntry]
    /// The outcome in one sentence.
    public var verdict: String
    /// What the mitigation does not prevent, said plainly.
    public var limits: [String]

    /// An empty report for `hazard`; scenarios fill it in.
    public init(hazard: String, mitigated: Bool, store: String) {
        self.hazard = hazard
        self.mitigated = mitigated
        self.mitigations = []
        self.store = store
        self.groups = []
        self.steps = []
        self.losses = []
        self.metrics = []
        self.audit = []
        self.verdict = ""
        self.limits = []
    }

    /// The metric named `name`, if recorded.
    public func metric(_ name: String) -> Int? { metrics.first { $0.name == name }?.value }

    mutating func step(_ line: String) { steps.append(line) }

    mutating func record(_ name: String, _ value: Int) {
        metrics.removeAll { $0.name == name }
        metrics.append(Metric(name: name, value: value))
    }
}

/// One number of a hazard report.
public struct Metric: Sendable, Hashable, Codable {
    /// What it counts (`failed refreshes`).
    public var name: String
    /// The count.
    public var value: Int

    /// - Parameters: see the properties.
    public init(name: String, value: Int) {
        self.name = name
        self.value = value
    }
}

/// A hazard's unmitigated and mitigated runs side by side.
public struct HazardComparison: Sendable, Hashable, Codable {
    /// The hazard.
    public let hazard: Hazard
    /// As Keychain Services behaves.
    public let unmitigated: HazardReport
    /// With the mitigations on.
    public let mitigated: HazardReport

    /// - Parameters: see the properties.
    public init(hazard: Hazard, unmitigated: HazardReport, mitigated: HazardReport) {
        self.hazard = hazard
        self.unmitigated = unmitigated
        self.mitigated = mitigated
    }
}

/// What one app lost in a hazard (items it had created, updates it had made, probes it had
/// written) and which apps caused it.
public struct AppLoss: Sendable, Hashable, Codable {
    /// The bundle ID of the app whose items were deleted.
    public var app: String
    /// How many it lost.
    public var lost: Int
    /// What it lost: `items`, `updates`, `probes`.
    public var unit: String
    /// The bundle IDs of the apps that caused it.
    public var causedBy: [String]

    /// - Parameters: see the properties.
    public init(app: String, lost: Int, unit: String = "items", causedBy: [String]) {
        self.app = app
        self.lost = lost
        self.unit = unit
        self.causedBy = causedBy
    }

    /// Per app that added them (the emulator's provenance: a device keeps none), the items of
    /// `before` missing from `after` (by primary key), all blamed on `causedBy`; apps that lost
    /// nothing are left out.
    static func losses(before: [StoredItem], after: [StoredItem], causedBy: String) -> [AppLoss] {
        let remaining = Set(after.map(\.primaryKey))
        let gone = before.filter { !remaining.contains($0.primaryKey) }
        return MitigatedStore.count(gone).sorted { $0.key < $1.key }
            .map { AppLoss(app: $0.key, lost: $0.value, causedBy: [causedBy]) }
    }

    /// Adds `more` into `losses`, summing losses of one app, unit and cause.
    static func merge(_ more: [AppLoss], into losses: inout [AppLoss]) {
        for loss in more {
            if let index = losses.firstIndex(where: { $0.app == loss.app && $0.unit == loss.unit && $0.causedBy == loss.causedBy }) {
                losses[index].lost += loss.lost
            } else {
                losses.append(loss)
            }
        }
    }
}
