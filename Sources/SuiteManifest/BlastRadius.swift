import Foundation
import SharedKeychain

/// Which app of a suite can destroy which other app's sign-in, and by which calls: computed from
/// the manifest alone (cache groups, entitlements, client IDs, families), nothing run.
///
/// Ordered pairs (attacker, victim) of different apps; an app's own sign-in is left out, since
/// removing it is what these calls are for. A suite whose apps each keep their cache in their
/// own group and get single sign-on from the broker has no pair at all.
public struct BlastRadius: Sendable, Hashable {
    /// The manifest's path.
    public let manifest: String
    /// The suite's display name, if the manifest gives one.
    public let suiteName: String?
    /// The suite's apps, in manifest order (rows and columns of the matrix).
    public let apps: [App]
    /// The pairs with at least one way, attacker-major in manifest order; never an app with itself.
    public let cells: [Cell]
    /// The apps with the Intune App SDK, in manifest order, and where it reads their token
    /// (``intuneExposures`` are the apps that can delete it).
    public let intuneReaders: [IntuneReader]

    /// The apps as the rules tell them apart: every cell's ways are its profiles' ways.
    let profiles: BlastProfiles

    /// Each bundle ID's index into ``apps``: finding a pair's ways costs two lookups, not a
    /// search of the cells.
    private let appPositions: [String: Int]

    /// An app as the matrix labels it.
    public struct App: Sendable, Hashable {
        /// The bundle ID.
        public let bundleID: String
        /// The display name, if the manifest gives one.
        public let name: String?
        /// The group its SDK keeps its sign-in in, with the team prefix.
        public let keychainGroup: String
        /// The client ID it signs in with.
        public let clientID: String
        /// Its family (FOCI), if any.
        public let familyID: String?
        /// False when the app is not entitled to its own cache group: it has no sign-in to lose.
        public let signsIn: Bool

        /// `Contoso Mail`, or the bundle ID when the manifest gives no name.
        public var label: String { name ?? bundleID }

        /// `Contoso Mail (com.contoso.mail)`, or the bundle ID alone.
        public var displayName: String { name.map { "\($0) (\(bundleID))" } ?? bundleID }
    }

    /// Every way `attacker` can destroy `victim`'s sign-in.
    public struct Cell: Sendable, Hashable {
        /// The bundle ID of the app making the call.
        public let attacker: String
        /// The bundle ID of the app whose sign-in goes.
        public let victim: String
        /// In ``DestructiveCall`` order, at least one.
        public let ways: [Way]

        /// The calls of ``ways``.
        public var calls: [DestructiveCall] { ways.map(\.call) }
    }

    /// One call, the group it destroys the victim's sign-in in, and why the manifest allows it.
    public struct Way: Sendable, Hashable {
        /// The call the attacker makes (or, for the race, the saves it makes at once).
        public let call: DestructiveCall
        /// The victim's cache group, as stored in `kSecAttrAccessGroup`.
        public let group: String
        /// Why the call reaches the victim's sign-in, naming the group (and client ID or family).
        public let reason: String
    }

    /// Applies every ``DestructiveCall`` rule to every ordered pair of different apps of `suite`:
    /// once per pair of app profiles (apps the rules cannot tell apart), each pair of apps
    /// getting its profiles' ways.
    ///
    /// - Throws: ``SuiteManifestError/entitlements(_:_:)`` when an app's entitlements are
    ///   malformed or belong to another team (`suite check` reports the same).
    public init(_ suite: Suite) throws(SuiteManifestError) {
        var subjects: [BlastSubject] = []
        for app in suite.apps { subjects.append(try BlastSubject(app)) }
        manifest = suite.manifest.path
        suiteName = suite.name
        let apps = subjects.map {
            App(bundleID: $0.app.bundleID, name: $0.app.name, keychainGroup: $0.cacheGroup,
                clientID: $0.app.clientID, familyID: $0.app.familyID, signsIn: $0.signsIn)
        }
        let profiles = BlastProfiles(subjects)
        var cells: [Cell] = []
        for (attacker, attackerApp) in apps.enumerated() {
            let attackerProfile = profiles.profileOfApp[attacker]
            for (victim, victimApp) in apps.enumerated() where victim != attacker {
                let ways = profiles.ways(attacker: attackerProfile, victim: profiles.profileOfApp[victim])
                if !ways.isEmpty { cells.append(Cell(attacker: attackerApp.bundleID, victim: victimApp.bundleID, ways: ways)) }
            }
        }
        self.apps = apps
        self.cells = cells
        self.profiles = profiles
        intuneReaders = try Self.intuneReaders(of: subjects)
        appPositions = Dictionary(apps.indices.map { (apps[$0].bundleID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The ways `attacker` can destroy `victim`'s sign-in (bundle IDs); empty for none.
    public func ways(attacker: String, victim: String) -> [Way] {
        guard let attacker = appPositions[attacker], let victim = appPositions[victim] else { return [] }
        return ways(attackerAt: attacker, victimAt: victim)
    }

    /// The ways app `attacker` can destroy app `victim`'s sign-in (indices into ``apps``);
    /// empty for none, and for an app with itself.
    func ways(attackerAt attacker: Int, victimAt victim: Int) -> [Way] {
        attacker == victim ? [] : profiles.ways(attacker: profiles.profileOfApp[attacker], victim: profiles.profileOfApp[victim])
    }

    /// The index into ``apps`` of the app with this bundle ID.
    func appPosition(_ bundleID: String) -> Int? { appPositions[bundleID] }

    /// True when no app can destroy another's sign-in.
    public var isEmpty: Bool { cells.isEmpty }

    /// The ordered pairs of different apps: n × (n - 1).
    public var pairCount: Int { apps.count * (apps.count - 1) }

    /// All ways of all cells.
    public var wayCount: Int { cells.reduce(0) { $0 + $1.ways.count } }
}

extension BlastRadius: Encodable {
    private enum CodingKeys: String, CodingKey {
        case manifest, suite, apps, calls, cells, summary, empty
        case intuneEnrolment = "intune_enrolment"
    }

    private struct AppJSON: Encodable {
        let app: String
        let name: String?
        let keychainGroup: String
        let clientID: String
        let familyID: String?
        let signsIn: Bool

        enum CodingKeys: String, CodingKey {
            case app, name
            case keychainGroup = "keychain_group"
            case clientID = "client_id"
            case familyID = "family_id"
            case signsIn = "signs_in"
        }

        // Nil fields are written as null, so every key is always there.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try container.encode(name, forKey: .name)
            try container.encode(keychainGroup, forKey: .keychainGroup)
            try container.encode(clientID, forKey: .clientID)
            try container.encode(familyID, forKey: .familyID)
            try container.encode(signsIn, forKey: .signsIn)
        }
    }

    private struct CallJSON: Encodable {
        let call: String
        let code: String
        let api: String
        let summary: String
    }

    private struct WayJSON: Encodable {
        let call: String
        let group: String
        let reason: String
    }

    private struct CellJSON: Encodable {
        let attacker: String
        let victim: String
        let ways: [WayJSON]
    }

    private struct Summary: Encodable {
        let apps: Int
        let pairs: Int
        let exposedPairs: Int
        let ways: Int

        enum CodingKeys: String, CodingKey {
            case apps, pairs, ways
            case exposedPairs = "exposed_pairs"
        }
    }

    /// `{"manifest", "suite", "apps": [{"app", "name", "keychain_group", "client_id",
    /// "family_id", "signs_in"}], "calls": [{"call", "code", "api", "summary"}], "cells":
    /// [{"attacker", "victim", "ways": [{"call", "group", "reason"}]}], "summary": {"apps",
    /// "pairs", "exposed_pairs", "ways"}, "empty"}`, and when an app has the Intune App SDK
    /// `"intune_enrolment": {"readers": [{"app", "group", "reads_cache"}], "exposures":
    /// [{"attacker", "app", "group", "calls"}]}`. `cells` lists only pairs with a way, never an
    /// app with itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(manifest, forKey: .manifest)
        try container.encode(suiteName, forKey: .suite)
        try container.encode(apps.map {
            AppJSON(app: $0.bundleID, name: $0.name, keychainGroup: $0.keychainGroup, clientID: $0.clientID,
                    familyID: $0.familyID, signsIn: $0.signsIn)
        }, forKey: .apps)
        try container.encode(DestructiveCall.allCases.map {
            CallJSON(call: $0.rawValue, code: $0.code, api: $0.api, summary: $0.summary)
        }, forKey: .calls)
        try container.encode(cells.map { cell in
            CellJSON(attacker: cell.attacker, victim: cell.victim,
                     ways: cell.ways.map { WayJSON(call: $0.call.rawValue, group: $0.group, reason: $0.reason) })
        }, forKey: .cells)
        try container.encode(Summary(apps: apps.count, pairs: pairCount, exposedPairs: cells.count, ways: wayCount), forKey: .summary)
        try container.encode(isEmpty, forKey: .empty)
        if !intuneReaders.isEmpty { try container.encode(IntuneEnrolmentJSON(self), forKey: .intuneEnrolment) }
    }
}
