import Foundation
import KeychainStorage
import Mitigations
import SharedKeychain
import SuiteManifest
import TokenCache

/// The device a state directory stands for: the apps installed on it, each with the identity it
/// was signed with (bundle ID, team, keychain groups, app groups) and what its Info.plist and
/// MSAL configuration declare. An installed app's identity is fixed at install time, as on iOS:
/// a command acting as it names only its bundle ID, and cannot re-declare its entitlements.
///
/// The registry is one JSON file, `<state>/device/apps.json`, replaced atomically under an
/// exclusive `flock`, so concurrent installs from several processes never lose one another.
public struct Device: Sendable {
    /// Where the device keeps its registry.
    public let directory: URL
    /// The state directory the device stands for (its private keyring lives there too).
    public let stateDirectory: URL

    /// The device of the state directory `stateDirectory`.
    public init(stateDirectory: URL) {
        self.stateDirectory = stateDirectory
        directory = stateDirectory.appendingPathComponent("device", isDirectory: true)
    }

    private var registry: URL { directory.appendingPathComponent("apps.json") }
    private var lockFile: URL { directory.appendingPathComponent("apps.lock") }

    /// The installed apps, by bundle ID.
    public func apps() throws(DeviceError) -> [InstalledApp] {
        let data: Data
        do throws(PrivateFile.Failure) {
            guard let read = try PrivateFile.read(registry) else { return [] }
            data = read
        } catch {
            throw .unreadable(path: registry.path, reason: error.description)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode([InstalledApp].self, from: data).sorted { $0.bundleID < $1.bundleID } } catch {
            throw .unreadable(
                path: registry.path,
                reason: "it is not an app registry (\(InputValidation.describe(decodingError: error))); remove it and install the apps again")
        }
    }

    /// The installed app `bundleID`, or nil.
    public func app(_ bundleID: String) throws(DeviceError) -> InstalledApp? {
        try apps().first { $0.bundleID.lowercased() == bundleID.lowercased() }
    }

    /// Installs every app of `suite` (replacing an installed app of the same bundle ID, whose
    /// keychain items stay, as an update keeps them on iOS). A suite whose check finds errors is
    /// refused whole, and nothing changes, unless `allowingCheckErrors`: a device installs what
    /// was signed without judging it, so a signed build's entitlements can be reproduced as
    /// they are (a dump with `TEAM.*`), and its keychain calls then fail as on the device.
    ///
    /// - Parameters:
    ///   - suite: the suite whose apps are installed.
    ///   - date: the installation date recorded for each app.
    ///   - allowingCheckErrors: install even when `suite check` finds errors (malformed entries
    ///     are refused still).
    @discardableResult
    public func install(_ suite: Suite, at date: Date = Date(), allowingCheckErrors: Bool = false) throws(DeviceError) -> [InstalledApp] {
        let report = SuiteChecker.check(suite)
        guard report.errorCount == 0 || allowingCheckErrors else {
            let first = report.findings.first { $0.severity == .error }
            throw .suiteFailsCheck(manifest: suite.manifest.path, errors: report.errorCount, first: first?.message ?? "")
        }
        var installed: [InstalledApp] = []
        for app in suite.apps {
            let identity: AppIdentity
            do { identity = try app.identity() } catch { throw .suiteFailsCheck(manifest: suite.manifest.path, errors: 1, first: error.description) }
            installed.append(InstalledApp(app, identity: identity, manifest: suite.manifest, at: date))
        }
        try update { (apps) throws(DeviceError) in
            let bundles = Set(installed.map { $0.bundleID.lowercased() })
            apps.removeAll { bundles.contains($0.bundleID.lowercased()) }
            apps += installed
        }
        return installed
    }

    /// Removes `bundleID` from the device. Its keychain items stay, as on iOS.
    public func uninstall(_ bundleID: String) throws(DeviceError) {
        try update { (apps) throws(DeviceError) in
            guard let index = apps.firstIndex(where: { $0.bundleID.lowercased() == bundleID.lowercased() }) else {
                throw DeviceError.notInstalled(bundleID, installed: apps.map(\.bundleID))
            }
            apps.remove(at: index)
        }
    }

    /// Reads, changes and atomically rewrites the registry under the device lock.
    func update(_ change: (inout [InstalledApp]) throws(DeviceError) -> Void) throws(DeviceError) {
        let descriptor: Int32
        do throws(PrivateFile.Failure) {
            try PrivateFile.createDirectory(directory)
            guard let opened = try PrivateFile.openRegular(lockFile.path, flags: O_RDWR | O_CREAT) else {
                throw PrivateFile.Failure.system(path: lockFile.path, reason: "it vanished while being created")
            }
            descriptor = opened
        } catch {
            throw .unreadable(path: lockFile.path, reason: error.description)
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .unreadable(path: lockFile.path, reason: String(cString: strerror(errno))) }
        }
        var apps = try self.apps()
        try change(&apps)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try PrivateFile.write(try encoder.encode(apps.sorted { $0.bundleID < $1.bundleID }), to: registry)
        } catch let error as PrivateFile.Failure {
            throw .unreadable(path: registry.path, reason: "cannot write: \(error.description)")
        } catch {
            throw .unreadable(path: registry.path, reason: "cannot encode: \(error)")
        }
    }
}

/// One app installed on the device, with every setting its manifest entry gave it: an app acts
/// as installed in every later command, whoever runs it. In `apps.json` the settings are fields
/// of the app's object; those an older version did not keep (`sdk`, `redirectURI`, `usesBroker`,
/// `certificateBasedAuth`, `certificateAuthRedirectURI`, `privileged`) are absent there and read
/// as nil, which acts as that version did (MSAL, the broker when the schemes allow it).
public struct InstalledApp: Sendable, Hashable, Codable {
    /// The identity it was signed with: bundle ID, team, keychain groups (expanded), app groups.
    public var identity: AppIdentity
    public var name: String?
    /// Its MSAL configuration: one client ID per suite, the family, the sharing group (no team).
    public var clientID: String
    public var familyID: String?
    public var sharingGroup: String
    /// The SDK it signs in with; nil: installed by a version that did not keep it (MSAL).
    public var sdk: IdentitySDK?
    /// The redirect URI its manifest gives; nil: not kept (`msauth.<bundle id>://auth`).
    public var redirectURI: String?
    /// Whether its manifest lets the SDK call the broker (`broker:`); nil: not kept.
    public var usesBroker: Bool?
    /// Certificate-based auth and its redirect URI, and whether it is privileged; nil: not kept.
    public var certificateBasedAuth: Bool?
    public var certificateAuthRedirectURI: String?
    public var privileged: Bool?
    /// Info.plist `CFBundleURLSchemes` and `LSApplicationQueriesSchemes`.
    public var urlSchemes: [String]
    public var queriedSchemes: [String]
    /// The suite manifest it came from, and when.
    public var manifest: String
    public var installedAt: Date

    public var bundleID: String { identity.bundleID }

    /// The settings its manifest gave it, as kept at install; what was not kept takes the
    /// manifest's defaults.
    public var settings: AppSettings {
        AppSettings(
            name: name, clientID: clientID, redirectURI: redirectURI, sharingGroup: sharingGroup, familyID: familyID, sdk: sdk ?? .msal,
            usesBroker: usesBroker, certificateBasedAuth: certificateBasedAuth ?? false, certificateAuthRedirectURI: certificateAuthRedirectURI,
            privileged: privileged ?? false)
    }

    init(identity: AppIdentity, settings: AppSettings, urlSchemes: [String], queriedSchemes: [String], manifest: String, at date: Date) {
        self.identity = identity
        name = settings.name
        clientID = settings.clientID
        familyID = settings.familyID
        sharingGroup = settings.sharingGroup
        sdk = settings.sdk
        redirectURI = settings.redirectURI
        usesBroker = settings.usesBroker
        certificateBasedAuth = settings.certificateBasedAuth
        certificateAuthRedirectURI = settings.certificateAuthRedirectURI
        privileged = settings.privileged
        self.urlSchemes = urlSchemes
        self.queriedSchemes = queriedSchemes
        self.manifest = manifest
        installedAt = date
    }

    init(_ app: SuiteApp, identity: AppIdentity, manifest: URL, at date: Date) {
        // Xcode expands build settings when it builds the app; the device sees the result.
        self.init(
            identity: identity, settings: app.settings,
            urlSchemes: app.infoPlist.urlSchemes.map { $0.replacingOccurrences(of: "$(PRODUCT_BUNDLE_IDENTIFIER)", with: identity.bundleID) },
            queriedSchemes: app.infoPlist.queriesSchemes, manifest: manifest.path, at: date)
    }
}

/// Why a device operation failed. Bad input is errSecParam; nothing was changed.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    case unreadable(path: String, reason: String)
    case suiteFailsCheck(manifest: String, errors: Int, first: String)
    case notInstalled(String, installed: [String])
    /// A command re-declared an installed app's identity with other entitlements or team.
    case identityMismatch(bundleID: String, installed: [String], declared: [String])
    /// A suite manifest, or the entry an app was asked for, is not usable.
    case suite(SuiteManifestError)
    /// A declared identity's team or groups are not valid.
    case accessGroup(AccessGroupError)
    /// A declared identity's entitlements plist is not usable.
    case entitlements(EntitlementsError)
    /// The mitigation policy file is not usable.
    case policy(PolicyError)
    /// The private keyring's daemon is not running, so it cannot be signalled.
    case keyringDaemonNotRunning
    /// The private keyring's daemon could not be signalled.
    case signalFailed(pid: Int32, signal: Int32, reason: String)

    /// The message, in the front end's words when it has its own (``FrontEndWording``).
    public var description: String {
        FrontEndWording.words(for: self, neutral: neutralDescription)
    }

    /// The message in terms true for any caller of the library.
    public var neutralDescription: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot use the device's file \(path): \(reason)"
        case .suiteFailsCheck(let manifest, let errors, let first):
            "\(manifest) fails the suite's check with \(errors.counted("error")) (first: \(first)); nothing was installed"
        case .notInstalled(let bundleID, let installed):
            "\(bundleID) is not installed on this device; installed: \(installed.isEmpty ? "none" : installed.joined(separator: ", ")). \(Remedy.installFromSuite)"
        case .identityMismatch(let bundleID, let installed, let declared):
            "\(bundleID) is installed with access groups \(installed.joined(separator: ", ")); an installed app's identity is fixed at install time and cannot be re-declared as \(declared.joined(separator: ", ")). \(Remedy.dropDeclaredIdentity)"
        case .suite(let error): error.description
        case .accessGroup(let error): error.description
        case .entitlements(let error): error.description
        case .policy(let error): error.description
        case .keyringDaemonNotRunning: "the private keyring's daemon is not running"
        case .signalFailed(let pid, let signal, let reason): "cannot send signal \(signal) to the keyring daemon (pid \(pid)): \(reason)"
        }
    }

    /// The wrapped failure's status (a manifest, group, entitlements or policy error reads as
    /// it would alone); errSecParam for the device's own.
    public var status: KeychainStatus {
        switch self {
        case .suite(let error): error.status
        case .accessGroup(let error): error.status
        case .entitlements(let error): error.status
        case .policy(let error): error.status
        case .keyringDaemonNotRunning, .signalFailed: .notAvailable
        default: .param
        }
    }

    public var message: String {
        switch self {
        case .suite(let error): error.message
        case .accessGroup(let error): error.message
        case .entitlements(let error): error.message
        case .policy(let error): error.message
        default: description
        }
    }
}

/// The broker, Microsoft Authenticator: an app of Microsoft's own team whose keychain group no
/// suite app can reach, and what a suite app needs to use it.
extension Device {
    public static let brokerBundleID = "com.microsoft.azureauthenticator"
    public static let brokerTeam = "UBF8T346G9"
    /// The broker's own keychain group (without the team).
    public static let brokerGroup = "com.microsoft.workplacejoin"
    public static let brokerClientID = "4813382a-8fa7-425e-ab75-3b753aab3abb"

    /// Installs the broker (replacing an installed one; its keychain items stay).
    @discardableResult
    public func installBroker(at date: Date = Date()) throws(DeviceError) -> InstalledApp {
        let identity: AppIdentity
        do {
            let team = try TeamIdentifier(Self.brokerTeam)
            identity = try AppIdentity(
                bundleID: Self.brokerBundleID, teamID: team, keychainAccessGroups: [AccessGroup(teamID: team, identifier: Self.brokerGroup)])
        } catch {
            throw .unreadable(path: directory.path, reason: "cannot make the broker's identity: \(error)")
        }
        let broker = InstalledApp(
            identity: identity,
            settings: AppSettings(name: "Microsoft Authenticator", clientID: Self.brokerClientID, sharingGroup: Self.brokerGroup, familyID: "1"),
            urlSchemes: ["msauthv2", "msauthv3"], queriedSchemes: [], manifest: "(the broker, built in)", at: date)
        try update { (apps) throws(DeviceError) in
            apps.removeAll { $0.bundleID.lowercased() == Self.brokerBundleID }
            apps.append(broker)
        }
        return broker
    }

    /// Why `app` cannot use the broker, or nil when it can: the broker is installed, and the app
    /// queries `msauthv2`, declares its `msauth.<bundle id>` URL scheme (REFERENCE 6) and its
    /// manifest does not say `broker: false`.
    public func brokerUnavailable(for app: InstalledApp?) throws(DeviceError) -> String? {
        guard try self.app(Self.brokerBundleID) != nil else { return "the broker is not installed (\(Remedy.installBroker))" }
        guard let app else { return "only an installed app can call the broker (the device must know who calls)" }
        var missing: [String] = []
        if !app.queriedSchemes.contains("msauthv2") { missing.append("msauthv2 in LSApplicationQueriesSchemes") }
        let scheme = RedirectURI.msalScheme(bundleID: app.bundleID)
        if !app.urlSchemes.contains(scheme) { missing.append("\(scheme) in CFBundleURLSchemes") }
        if app.usesBroker == false { missing.append("broker: true in its manifest entry") }
        return missing.isEmpty ? nil : "\(app.bundleID) is not set up for the broker: it needs \(missing.joined(separator: " and "))"
    }
}
