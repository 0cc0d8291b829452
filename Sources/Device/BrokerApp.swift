import Foundation
import SharedKeychain

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
            identity: identity, name: "Microsoft Authenticator", clientID: Self.brokerClientID, familyID: "1",
            sharingGroup: Self.brokerGroup, urlSchemes: ["msauthv2", "msauthv3"], queriedSchemes: [],
            manifest: "(the broker, built in)", at: date)
        try update { (apps) throws(DeviceError) in
            apps.removeAll { $0.bundleID.lowercased() == Self.brokerBundleID }
            apps.append(broker)
        }
        return broker
    }

    /// Why `app` cannot use the broker, or nil when it can: the broker is installed, and the app
    /// queries `msauthv2` and declares its `msauth.<bundle id>` URL scheme (REFERENCE 6).
    public func brokerUnavailable(for app: InstalledApp?) throws(DeviceError) -> String? {
        guard try self.app(Self.brokerBundleID) != nil else { return "the broker is not installed (`shared-keychain device install-broker`)" }
        guard let app else { return "only an installed app can call the broker (the device must know who calls)" }
        var missing: [String] = []
        if !app.queriedSchemes.contains("msauthv2") { missing.append("msauthv2 in LSApplicationQueriesSchemes") }
        if !app.urlSchemes.contains("msauth.\(app.bundleID)") { missing.append("msauth.\(app.bundleID) in CFBundleURLSchemes") }
        return missing.isEmpty ? nil : "\(app.bundleID) is not set up for the broker: it needs \(missing.joined(separator: " and "))"
    }
}
