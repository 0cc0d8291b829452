import Foundation
import Mitigations
import SharedKeychain

/// Which run of a hazard: as iOS ships, with the fixes a team can deploy in its own apps, or
/// with the keychain features only the emulator has.
public enum HazardVariant: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Keychain Services and MSAL as they ship.
    case unmitigated
    /// The hazard's mitigations that are ``MitigationScope/deployable``.
    case deployable
    /// The hazard's mitigations that are ``MitigationScope/whatIf``.
    case whatIf = "what-if"

    /// The scope of the mitigations the run switches on, nil for ``unmitigated``.
    public var scope: MitigationScope? {
        switch self {
        case .unmitigated: nil
        case .deployable: .deployable
        case .whatIf: .whatIf
        }
    }

    /// The raw value (`what-if`).
    public var description: String { rawValue }
}

/// One mitigation of a hazard, and where it lives.
public struct HazardMitigation: Sendable, Hashable, Codable {
    /// What it is (`per-app access groups, single sign-on through the broker`).
    public var name: String
    /// In your apps, or only in the emulator's keychain.
    public var scope: MitigationScope
    /// ``MitigationScope/label``, kept in the JSON so a reader needs no lookup.
    public var label: String

    /// - Parameters: see the properties.
    public init(_ name: String, _ scope: MitigationScope) {
        self.name = name
        self.scope = scope
        self.label = scope.label
    }
}

/// What only the emulator knows of a run: which app created and deleted which items (its
/// provenance), the audit journal, the interleavings it forced. None of it exists on a device.
public struct EmulatorView: Sendable, Hashable, Codable {
    /// The label every line of this view carries.
    public static let label = "recorded by the emulator; a device keeps none"

    /// ``label``, kept in the JSON.
    public var label: String
    /// What the emulator recorded, one line each.
    public var lines: [String]
    /// Per app: how many of its items were deleted, and by whom (from the emulator's provenance).
    public var losses: [AppLoss]
    /// The journal of the audited group, when the audit mitigation was on.
    public var audit: [AuditEntry]

    /// An empty view.
    public init() {
        label = Self.label
        lines = []
        losses = []
        audit = []
    }
}

/// What one run of a hazard did, in two parts: what a device shows (what any app or user on the
/// phone could observe: error codes, account lists, items in the group), and what only the
/// emulator shows (its provenance and audit). Then the numbers, the outcome and what the
/// mitigations do not prevent. Holds no secret: tokens and item data never enter a report.
public struct HazardReport: Sendable, Hashable, Codable {
    /// The hazard's name (`wipe-all`).
    public var hazard: String
    /// Which run this is.
    public var variant: HazardVariant
    /// The mitigations in force, each with where it lives.
    public var mitigations: [HazardMitigation]
    /// The store the simulated apps shared (`memory`, `secret-service`).
    public var store: String
    /// The group(s) the run used.
    public var groups: [String]
    /// What a device shows, in order, one line each.
    public var deviceView: [String]
    /// What only the emulator shows.
    public var emulatorView: EmulatorView
    /// The numbers the outcome rests on (`failed refreshes`, `lost updates`...).
    public var metrics: [Metric]
    /// The outcome in one sentence.
    public var verdict: String
    /// What the mitigation does not prevent, said plainly.
    public var limits: [String]

    /// An empty report for `hazard`; each hazard's run fills it in.
    public init(hazard: String, variant: HazardVariant, store: String) {
        self.hazard = hazard
        self.variant = variant
        self.mitigations = []
        self.store = store
        self.groups = []
        self.deviceView = []
        self.emulatorView = EmulatorView()
        self.metrics = []
        self.verdict = ""
        self.limits = []
    }

    /// Whether any mitigation was on.
    public var mitigated: Bool { variant != .unmitigated }

    /// The emulator's losses (``EmulatorView/losses``).
    public var losses: [AppLoss] {
        get { emulatorView.losses }
        set { emulatorView.losses = newValue }
    }

    /// The emulator's audit journal (``EmulatorView/audit``).
    public var audit: [AuditEntry] {
        get { emulatorView.audit }
        set { emulatorView.audit = newValue }
    }

    /// The metric named `name`, if recorded.
    public func metric(_ name: String) -> Int? { metrics.first { $0.name == name }?.value }

    /// Something any app or user on the phone could observe.
    mutating func step(_ line: String) { deviceView.append(line) }

    /// Something only the emulator knows.
    mutating func emulator(_ line: String) { emulatorView.lines.append(line) }

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

/// A hazard's runs side by side: unmitigated first, then the deployable fix, then (when asked)
/// the emulator-only what-if.
public struct HazardComparison: Sendable, Hashable, Codable {
    /// The hazard.
    public let hazard: Hazard
    /// The runs, in ``HazardVariant`` order.
    public let runs: [HazardReport]

    /// - Parameters: see the properties.
    public init(hazard: Hazard, runs: [HazardReport]) {
        self.hazard = hazard
        self.runs = runs
    }

    /// The run of `variant`, if it was made.
    public func report(_ variant: HazardVariant) -> HazardReport? { runs.first { $0.variant == variant } }
}

/// What one app lost in a hazard (items it had created, updates it had made, probes it had
/// written, sign-in states) and which apps caused it. Item losses come from the emulator's
/// provenance (which app created each item), so they belong to its view, never the device's.
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

    /// Per app that added them, the items of `before` missing from `after` (by primary key), all
    /// blamed on `causedBy`; apps that lost nothing are left out. With ``creators(of:)``, the one
    /// place a hazard reads the emulator's provenance of an item (a device keeps none).
    static func losses(before: [StoredItem], after: [StoredItem], causedBy: String) -> [AppLoss] {
        let remaining = Set(after.map(\.primaryKey))
        let gone = before.filter { !remaining.contains($0.primaryKey) }
        return MitigatedStore.count(gone).sorted { $0.key < $1.key }
            .map { AppLoss(app: $0.key, lost: $0.value, causedBy: [causedBy]) }
    }

    /// The apps that added `items`, by the emulator's provenance, with how many each.
    static func creators(of items: [StoredItem]) -> [(app: String, count: Int)] {
        MitigatedStore.count(items).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
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
