import Foundation
import SharedKeychain
import SuiteManifest

/// What a caller knows of the app it acts as, before the device says who that is: the CLI's
/// `--app`/`--suite`/`--team`/`--entitlements`, SecItem's environment, a scenario's suite entry.
/// ``Device/resolve(_:)`` turns each into one ``ResolvedApp`` by one set of rules.
public enum AppRequest: Sendable, Hashable {
    /// The app installed on the device as `bundleID`: its identity and every setting as kept.
    case installed(bundleID: String)
    /// The entry `bundleID` of `suite`, a manifest its caller loaded once.
    case suiteEntry(bundleID: String, suite: Suite)
    /// An app declared on the spot by its team and, perhaps, its entitlements plist. When
    /// `bundleID` is installed, the declaration must be the installed identity (its team and
    /// groups), since an app's identity is fixed when it is signed.
    case declared(bundleID: String, team: String, entitlements: URL?)

    /// The bundle ID asked for.
    public var bundleID: String {
        switch self {
        case .installed(let bundleID), .suiteEntry(let bundleID, _), .declared(let bundleID, _, _): bundleID
        }
    }

    /// An app named by its bundle ID alone (installed), or declared by a team and perhaps
    /// entitlements: the one rule for the CLI's options and SecItem's environment. Entitlements
    /// without a team name an installed app, whose identity the device already knows.
    public init(bundleID: String, team: String?, entitlements: URL?) {
        guard let team else {
            self = .installed(bundleID: bundleID)
            return
        }
        self = .declared(bundleID: bundleID, team: team, entitlements: entitlements)
    }

    /// SecItem's environment: `SHARED_KEYCHAIN_APP`, and for an app not installed
    /// `SHARED_KEYCHAIN_TEAM` and perhaps `SHARED_KEYCHAIN_ENTITLEMENTS`; nil without an app.
    /// Empty variables count as unset.
    public init?(environment: [String: String]) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let bundleID = value("SHARED_KEYCHAIN_APP") else { return nil }
        self.init(
            bundleID: bundleID, team: value("SHARED_KEYCHAIN_TEAM"),
            entitlements: value("SHARED_KEYCHAIN_ENTITLEMENTS").map { URL(fileURLWithPath: $0) })
    }
}

extension Device {
    /// The app `request` names, by one set of rules:
    ///
    /// - an installed app: its identity and the settings its manifest entry gave it at install;
    /// - a suite entry: the entry's identity and settings, whether or not it is installed;
    /// - a declared app: its team and entitlements; when its bundle ID is installed they must
    ///   be the installed team and access groups (``DeviceError/identityMismatch(bundleID:installed:declared:)``),
    ///   and it then acts as installed, with the settings kept.
    ///
    /// - Throws: ``DeviceError/notInstalled(_:installed:)`` for an installed app the device does
    ///   not have; the manifest's, the group's or the entitlements' error, wrapped.
    public func resolve(_ request: AppRequest) throws(DeviceError) -> ResolvedApp {
        switch request {
        case .installed(let bundleID):
            guard let installed = try app(bundleID) else { throw .notInstalled(bundleID, installed: try apps().map(\.bundleID)) }
            return ResolvedApp(installed: installed)
        case .suiteEntry(let bundleID, let suite):
            do throws(SuiteManifestError) {
                return try ResolvedApp(suiteEntry: try suite.app(bundleID: bundleID), manifest: suite.manifest.path)
            } catch {
                throw .suite(error)
            }
        case .declared(let bundleID, let team, let entitlements):
            let installed = try app(bundleID)
            let declared = try Self.identity(of: bundleID, team: team, entitlements: entitlements)
            guard let installed else { return ResolvedApp(identity: declared, settings: nil, origin: .adHoc) }
            guard installed.identity.teamID == declared.teamID, installed.identity.accessGroupNames == declared.accessGroupNames else {
                throw .identityMismatch(bundleID: bundleID, installed: installed.identity.accessGroupNames, declared: declared.accessGroupNames)
            }
            return ResolvedApp(identity: declared, settings: installed.settings, origin: .installed, installed: installed)
        }
    }

    /// The identity `team` and `entitlements` declare for `bundleID`; without entitlements, only
    /// its app ID group.
    private static func identity(of bundleID: String, team: String, entitlements: URL?) throws(DeviceError) -> AppIdentity {
        let teamID: TeamIdentifier
        do { teamID = try TeamIdentifier(team) } catch { throw .accessGroup(error) }
        guard let entitlements else {
            do { return try AppIdentity(bundleID: bundleID, teamID: teamID) } catch { throw .accessGroup(error) }
        }
        do {
            return try AppIdentity(bundleID: bundleID, teamID: teamID, entitlements: Entitlements(contentsOf: entitlements), source: entitlements.path)
        } catch {
            throw .entitlements(error)
        }
    }
}
