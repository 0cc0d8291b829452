import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain

/// Two apps of one new team sharing `<team>.com.contoso.shared`, and one outside it, on `backend`:
/// each SecItem call runs as one of them through ``run(_:_:)``.
struct Apps {
    let team: String
    let shared: String
    let mail: SecItemContext
    let calendar: SecItemContext
    let notes: SecItemContext
    let store: any ItemStore

    init(_ backend: TestBackend) throws {
        team = TestBackend.uniqueTeamID()
        shared = "\(team).com.contoso.shared"
        store = try backend.makeStore()
        let teamID = try TeamIdentifier(team)
        let group = try AccessGroup(teamID: teamID, identifier: "com.contoso.shared")
        mail = SecItemContext(app: try AppIdentity(bundleID: "com.contoso.mail", teamID: teamID, keychainAccessGroups: [group]), store: store)
        calendar = SecItemContext(app: try AppIdentity(bundleID: "com.contoso.calendar", teamID: teamID, keychainAccessGroups: [group]), store: store)
        notes = SecItemContext(app: try AppIdentity(bundleID: "com.contoso.notes", teamID: teamID), store: store)
    }

    /// `body`'s SecItem calls, made as `app`.
    func run<T>(_ app: SecItemContext, _ body: () throws -> T) rethrows -> T {
        try SecItemContext.with(app, body)
    }

    /// Every item of every group, straight from the store: what the calls really left behind.
    func everything() throws -> [KeychainItem] {
        try store.items(matching: ItemQuery(groups: [shared, "\(team).com.contoso.mail", "\(team).com.contoso.calendar", "\(team).com.contoso.notes"]), limit: nil)
    }
}
