import Device
import Foundation
import SharedKeychain
import TokenCache

/// One load run: how many simulated apps, what they do, and for how long.
public struct LoadConfiguration: Sendable, Codable, Hashable {
    /// What the simulated apps do.
    public enum Workload: String, Sendable, Codable, CaseIterable {
        /// Keychain items: read, write, update, remove, list, wipe, acquire.
        case items
        /// The MSAL token cache: apps sign their own users in, acquire silently, refresh,
        /// remove accounts and wipe the group (signin, acquire, refresh, remove-account, wipe).
        case token

        /// The operations a mix of this workload may name.
        public var operations: [LoadOperation] {
            switch self {
            case .items: [.read, .write, .update, .remove, .list, .wipe, .acquire]
            case .token: [.signin, .acquire, .refresh, .removeAccount, .wipe]
            }
        }

        /// The mix when none is given: reads dominate, as in apps, and most of them hit.
        public var defaultMix: String {
            switch self {
            // No wipe by default: every wipe empties the group, and reads miss until writes
            // refill it (with wipe=1 most reads miss). Add wipe to the mix to load that hazard.
            case .items: "read=60,write=25,update=5,remove=5,list=5"
            case .token: "signin=20,acquire=60,refresh=10,remove-account=9,wipe=1"
            }
        }
    }

    /// Simulated apps, each entitled to the shared group.
    public var apps: Int
    public var workload: Workload
    public var mix: OperationMix
    /// Items each app owns (its key space); reads pick any app's items. In the token workload:
    /// the users each app signs in.
    public var itemsPerApp: Int
    /// Bytes of data per item.
    public var valueSize: Int
    /// Length of the measured phase, in seconds, unless `operations` is set.
    public var duration: Double
    /// Operations per app in the measured phase; overrides `duration`.
    public var operations: Int?
    /// Seconds of unmeasured operations before the measured phase.
    public var warmup: Double
    /// Seeds each app's random choices (app `i` uses `seed + i`), so runs repeat.
    public var seed: UInt64
    /// The team of the simulated apps.
    public var team: String
    /// The access group the apps share. Unless one is named (`--group`), a group of the run's
    /// own, `<team>.sharedkeychain-load.<run id>`, which no other app uses and the run deletes
    /// at its end.
    public var group: String
    /// Whether ``group`` was made for this run (true) or named by the caller (false).
    public var groupIsRunScoped: Bool
    /// Whether the run may use a named group that already holds items. Even then, deletes obey
    /// the group's mitigation policy, and only what the simulated apps created is cleaned up.
    public var allowExistingData: Bool
    /// Token workload: accounts signed in before the measured phase (a cache that is already full).
    public var prefillAccounts: Int
    /// Open loop: operations per second in total, started on a fixed schedule whatever the
    /// store does, with latency measured from each operation's intended start (corrected for
    /// coordinated omission). Nil: closed loop, each app starting its next call when the last ends.
    public var rate: Double?

    public init(
        apps: Int = 4, workload: Workload = .items, mix: OperationMix, itemsPerApp: Int = 100, valueSize: Int = 256,
        duration: Double = 10, operations: Int? = nil, warmup: Double = 1, seed: UInt64 = 1, team: String = "LOADTEST01",
        prefillAccounts: Int = 0, rate: Double? = nil, group: String? = nil, allowExistingData: Bool = false
    ) {
        self.group = group ?? Self.runScopedGroup(team: team)
        groupIsRunScoped = group == nil
        self.allowExistingData = allowExistingData
        self.apps = apps
        self.workload = workload
        self.prefillAccounts = prefillAccounts
        self.rate = rate
        self.mix = mix
        self.itemsPerApp = itemsPerApp
        self.valueSize = valueSize
        self.duration = duration
        self.operations = operations
        self.warmup = warmup
        self.seed = seed
        self.team = team
    }

    /// The bounds of each setting, so a typo cannot exhaust memory or run for years.
    public enum Limits {
        public static let apps: ClosedRange<Int> = 1...256
        public static let itemsPerApp: ClosedRange<Int> = 1...100_000
        /// At least room for the value's owner and version; at most 1 MiB per item.
        public static let valueSize: ClosedRange<Int> = 32...(1 << 20)
        /// apps x items x value size: what the keyring ends up holding.
        public static let totalBytes = 256 << 20
        public static let duration: ClosedRange<Double> = 0...86_400
        public static let operations: ClosedRange<Int> = 1...100_000_000
        public static let warmup: ClosedRange<Double> = 0...3_600
        public static let prefillAccounts: ClosedRange<Int> = 0...100_000
        /// Operations per second in total, in open loop.
        public static let rate: ClosedRange<Double> = 0.1...100_000
    }

    /// Checks every setting against ``Limits``; the error names the ``Setting`` and its range.
    public func validate() throws(LoadError) {
        do {
            try InputValidation.check(apps, Setting.apps.description, in: Limits.apps)
            try InputValidation.check(itemsPerApp, Setting.itemsPerApp.description, in: Limits.itemsPerApp)
            try InputValidation.check(valueSize, Setting.valueSize.description, in: Limits.valueSize, unit: "bytes")
            try InputValidation.check(duration, Setting.duration.description, in: Limits.duration, unit: "seconds")
            if let operations { try InputValidation.check(operations, Setting.operations.description, in: Limits.operations) }
            try InputValidation.check(warmup, Setting.warmup.description, in: Limits.warmup, unit: "seconds")
            try InputValidation.check(prefillAccounts, Setting.prefillAccounts.description, in: Limits.prefillAccounts)
            if let rate { try InputValidation.check(rate, Setting.rate.description, in: Limits.rate, unit: "operations per second") }
        } catch {
            throw .invalidConfiguration(error.message)
        }
        let total = apps * itemsPerApp * valueSize
        guard total <= Limits.totalBytes else {
            throw .invalidConfiguration(
                "\(Setting.apps) x \(Setting.itemsPerApp) x \(Setting.valueSize) is \(total) bytes; the limit is \(Limits.totalBytes) (256 MiB): fewer items or smaller values")
        }
        guard duration > 0 || operations != nil else { throw .invalidConfiguration("give a positive \(Setting.duration) or \(Setting.operations)") }
        if let stray = mix.percentages.keys.sorted().first(where: { !workload.operations.contains($0) }) {
            throw .invalidMix(
                "'\(stray.rawValue)' is not an operation of the \(workload.rawValue) workload; use \(workload.operations.map(\.rawValue).joined(separator: ", "))")
        }
        if prefillAccounts > 0, workload != .token {
            throw .invalidConfiguration("\(Setting.prefillAccounts) needs \(Setting.workload) token")
        }
        do { _ = try TeamIdentifier(team) } catch { throw .invalidConfiguration(error.description) }
        let shared: AccessGroup
        do { shared = try AccessGroup(group) } catch { throw .invalidConfiguration("\(Setting.group): \(error.description)") }
        guard shared.teamID.rawValue == team else {
            throw .invalidConfiguration(
                "\(Setting.group) \(group) belongs to team \(shared.teamID.rawValue), not to \(Setting.team) \(team): the simulated apps must be of the group's team (leave out \(Setting.team))")
        }
    }

    /// The prefix of every run-scoped group after the team: `<team>.sharedkeychain-load.`.
    public static let runScopedGroupIdentifier = "sharedkeychain-load"

    /// A fresh group for one run: `<team>.sharedkeychain-load.<12 hex digits>`.
    public static func runScopedGroup(team: String) -> String {
        let runID = UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12)
        return "\(team).\(runScopedGroupIdentifier).\(runID)"
    }

    /// The bundle ID of simulated app `index`.
    public static func bundleID(ofApp index: Int) -> String { "com.loadtest.app\(index)" }

    /// The identity of simulated app `index`: an ad-hoc app entitled to ``group`` only.
    public func identity(ofApp index: Int) throws -> AppIdentity {
        let shared = try AccessGroup(group)
        return try AppIdentity(bundleID: Self.bundleID(ofApp: index), teamID: shared.teamID, keychainAccessGroups: [shared])
    }

    /// Simulated app `index` as every keychain of the run resolves it: ad hoc (declared by the
    /// run, vouched for by nothing; audit journals mark its deletes so), with no manifest.
    public func app(_ index: Int) throws -> ResolvedApp {
        ResolvedApp(identity: try identity(ofApp: index), settings: nil, origin: .adHoc)
    }

    static let service = "load"

    /// The MSAL configuration every simulated app uses: one client ID, one family, as a suite's,
    /// sharing the run's group.
    var tokenConfiguration: TokenCacheConfiguration {
        TokenCacheConfiguration(clientID: "10ad7e57-0000-4000-8000-00000000a001", keychainSharingGroup: group, familyID: "1")
    }

    /// The user app `index` signs in for `acquire`.
    static func user(app: Int) -> String { "user\(app)@loadtest.example" }

    /// Token workload: user number `key` of app `app`.
    static func user(app: Int, key: Int) -> String { "u\(key).a\(app)@loadtest.example" }

    /// Token workload: prefilled account number `index`.
    static func prefilledUser(_ index: Int) -> String { "prefill\(index)@loadtest.example" }

    static func account(app: Int, key: Int) -> String { "a\(app)-k\(key)" }
}

/// Why a load run could not be set up or finished.
public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    case invalidMix(String)
    case invalidConfiguration(String)
    case workerFailed(app: Int, reason: String)
    /// The named group holds items the run did not write, and ``LoadConfiguration/allowExistingData`` was not set.
    case groupHoldsData(group: String, items: Int)

    public var description: String {
        switch self {
        case .invalidMix(let reason): "invalid \(LoadConfiguration.Setting.mix): \(reason)"
        case .invalidConfiguration(let reason): reason
        case .workerFailed(let app, let reason): "simulated app \(app) failed: \(reason)"
        case .groupHoldsData(let group, let items):
            "group \(group) holds \(items.counted("item")) that load did not write, and load deletes what it finds (wipes, "
                + "and its clean-up): leave out \(LoadConfiguration.Setting.group) to run in a group of load's own, or add \(LoadConfiguration.Setting.allowExistingData) to run "
                + "against them (deletes then obey the group's mitigation policy and are journaled where it audits). Nothing was deleted."
        }
    }

    public var status: KeychainStatus {
        switch self {
        case .invalidMix, .invalidConfiguration, .groupHoldsData: .param
        case .workerFailed: .io
        }
    }

    public var message: String { description }
}
