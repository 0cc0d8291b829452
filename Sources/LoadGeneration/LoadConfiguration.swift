import Foundation
import SharedKeychain
import TokenCache

/// One load run: how many simulated apps, what they do, and for how long.
public struct LoadConfiguration: Sendable, Codable, Hashable {
    /// Simulated apps, each entitled to the shared group.
    public var apps: Int
    public var mix: OperationMix
    /// Items each app owns (its key space); reads pick any app's items.
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
    /// The team of the simulated apps; the shared group is `<team>.com.microsoft.adalcache`.
    public var team: String

    public init(
        apps: Int = 4, mix: OperationMix, itemsPerApp: Int = 100, valueSize: Int = 256,
        duration: Double = 10, operations: Int? = nil, warmup: Double = 1, seed: UInt64 = 1, team: String = "LOADTEST01"
    ) {
        self.apps = apps
        self.mix = mix
        self.itemsPerApp = itemsPerApp
        self.valueSize = valueSize
        self.duration = duration
        self.operations = operations
        self.warmup = warmup
        self.seed = seed
        self.team = team
    }

    public func validate() throws(LoadError) {
        guard apps >= 1 else { throw .invalidConfiguration("--apps must be at least 1") }
        guard itemsPerApp >= 1 else { throw .invalidConfiguration("--items must be at least 1") }
        guard valueSize >= 32 else { throw .invalidConfiguration("--value-size must be at least 32 bytes (the value carries its owner and version)") }
        guard duration > 0 || (operations ?? 0) > 0 else { throw .invalidConfiguration("give a positive --duration or --operations") }
        guard warmup >= 0 else { throw .invalidConfiguration("--warmup cannot be negative") }
        do { _ = try TeamIdentifier(team) } catch { throw .invalidConfiguration(error.description) }
    }

    /// The full shared access group.
    public var group: String { "\(team).com.microsoft.adalcache" }

    /// The identity of simulated app `index`.
    public func identity(ofApp index: Int) throws -> AppIdentity {
        let team = try TeamIdentifier(team)
        return try AppIdentity(
            bundleID: "com.loadtest.app\(index)", teamID: team,
            keychainAccessGroups: [AccessGroup(teamID: team, identifier: "com.microsoft.adalcache")])
    }

    static let service = "load"

    /// The MSAL configuration every simulated app uses: one client ID, one family, as a suite's.
    static let tokenConfiguration = TokenCacheConfiguration(clientID: "10ad7e57-0000-4000-8000-00000000a001", familyID: "1")

    /// The user app `index` signs in for `acquire`.
    static func user(app: Int) -> String { "user\(app)@loadtest.example" }

    static func account(app: Int, key: Int) -> String { "a\(app)-k\(key)" }
}
