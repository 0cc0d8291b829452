import Foundation
import SharedKeychain
import TokenCache

/// `broker-key-delete`: MSAL keeps one broker key per sharing group (IdentityCore
/// `MSIDBrokerKeyProvider`, a `kSecClassKey` item tagged `com.microsoft.adBrokerKey\0`). Mail
/// and Calendar each send a request to the broker; Teams, of the same group, deletes the key
/// (as `createBrokerKeyWithError` does before it adds one). Each app's response handler reads
/// the group's key again, gets a new one, and cannot decrypt its answer
/// (`MSIDErrorBrokerResponseDecryptionFailed`). Mitigated: each app in its own group has its
/// own key, and Teams deletes only its own.
struct BrokerKeyDeleteHazard {
    let store: any ItemStore
    let mitigated: Bool

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        var report = HazardReport(hazard: Hazard.brokerKeyDelete.rawValue, variant: mitigated ? .deployable : .unmitigated, store: store.name)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", ownGroup: mitigated)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1", ownGroup: mitigated)
        let teams = try suite.tokenApp(MicrosoftApps.teams, client: MicrosoftApps.teamsClient, family: "1", ownGroup: mitigated)
        let broker = try BrokerSpoofHazard.broker(suite)
        let waiting = [mail, calendar]
        report.groups = Array(Set(waiting.map(\.cache.accessGroup))).sorted()
        defer { suite.cleanUp(suite.perAppGroups(waiting + [teams], broker: broker)) }

        var pending: [Pending] = []
        for app in waiting {
            let request = try app.cache.brokerRequest(
                loginHint: MicrosoftApps.user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: app.app.bundleID))
            let answer = try broker.handle(request.url, caller: app.app.bundleID)
            pending.append(Pending(cache: app.cache, bundleID: app.app.bundleID, request: request, answer: answer.url))
            report.step("\(app.app.bundleID) sends a broker request with the broker key of \(app.cache.accessGroup); the broker answers, encrypted under it")
        }
        let deleted = try teams.cache.deleteBrokerKey()
        report.step("\(MicrosoftApps.teams) deletes the broker key of \(teams.cache.accessGroup) (SecItemDelete class key, tag com.microsoft.adBrokerKey\\0): \(deleted.counted("key")) deleted")

        var broken: [String] = []
        for waiter in pending {
            if let failure = try waiter.take() {
                broken.append(waiter.bundleID)
                report.step("\(waiter.bundleID) takes the broker's answer: \(failure.errorCode ?? failure.status.name): \(failure.message)")
            } else {
                report.step("\(waiter.bundleID) takes the broker's answer: signed in")
            }
        }
        report.record("broker keys deleted", deleted)
        report.record("brokered responses that cannot be decrypted", broken.count)
        report.losses = broken.map { AppLoss(app: $0, lost: 1, unit: "brokered sign-ins", causedBy: [MicrosoftApps.teams]) }
        report.verdict = broken.isEmpty
            ? "\(MicrosoftApps.teams) deleted only its own group's broker key: every other app's brokered sign-in completed"
            : "one app of the group deleted the shared broker key, and the brokered responses of \(broken.count.counted("app")) could no longer be decrypted: the user must sign in again in each"
        if mitigated {
            report.limits = ["per-app groups give up silent single sign-on from the shared cache: every app's first sign-in goes to the broker"]
        }
        return report
    }

    /// An app waiting for the broker's answer to its request.
    private struct Pending {
        let cache: TokenCache
        let bundleID: String
        let request: BrokerRequest
        let answer: String

        /// Takes the answer: nil when signed in, the failure when the answer cannot be
        /// decrypted; any other failure is thrown.
        func take() throws(TokenCacheError) -> TokenCacheError? {
            do {
                _ = try cache.acceptBrokerResponse(answer, to: request)
                return nil
            } catch {
                guard case .brokerResponseDecryptionFailed = error else { throw error }
                return error
            }
        }
    }
}
