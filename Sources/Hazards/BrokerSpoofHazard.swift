import Foundation
import Mitigations
import SharedKeychain
import TokenCache

/// `broker-spoof`: Calendar presents Mail's redirect URI to the broker, which knows the caller
/// from the device and refuses. Then the point: in the shared cache group Calendar needs no
/// spoofing at all, since Mail's family refresh token is right there and redeems silently for
/// Mail's user. Mitigated: each app keeps its tokens in its own app-ID group and single sign-on
/// goes through the broker, whose check now guards every app's tokens.
struct BrokerSpoofHazard {
    let store: any ItemStore
    let mitigated: Bool

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let sharedGroup = suite.group(MicrosoftApps.sharingGroup)
        var report = HazardReport(hazard: Hazard.brokerSpoof.rawValue, variant: mitigated ? .deployable : .unmitigated, store: store.name)
        // Unmitigated: both apps in the shared group. Mitigated: each in its own app-ID group.
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", ownGroup: mitigated)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1", ownGroup: mitigated)
        let broker = try Self.broker(suite)
        let groups = mitigated ? [mail.cache.accessGroup, calendar.cache.accessGroup] : [sharedGroup]
        report.groups = groups
        // The broker keys live in each app's token group; the broker's tokens in its group.
        let appGroups = [mail, calendar].map { $0.app.keychain.app.appIDGroup.rawValue }
        defer { suite.cleanUp(Array(Set(groups + appGroups + [broker.cache.accessGroup])).sorted()) }

        let request = try mail.cache.brokerRequest(loginHint: MicrosoftApps.user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: MicrosoftApps.mail))
        let answer = try broker.handle(request.url, caller: MicrosoftApps.mail)
        _ = try mail.cache.acceptBrokerResponse(answer.url, to: request)
        report.step("\(MicrosoftApps.mail) signs \(MicrosoftApps.user) in through the broker; its tokens go to \(mail.cache.accessGroup)")

        let spoof = try calendar.cache.brokerRequest(loginHint: MicrosoftApps.user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: MicrosoftApps.mail))
        do {
            _ = try broker.handle(spoof.url, caller: MicrosoftApps.calendar)
            report.step("\(MicrosoftApps.calendar) presents \(MicrosoftApps.mail)'s redirect URI to the broker: answered")
        } catch {
            report.step("\(MicrosoftApps.calendar) presents \(MicrosoftApps.mail)'s redirect URI to the broker: refused, \(error.status.name): \(error.message)")
        }

        var taken = 0
        do {
            let stolen = try calendar.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
            taken = 1
            report.step("\(MicrosoftApps.calendar) acquires silently for \(MicrosoftApps.user) from its cache: ok (\(stolen.source)), no broker, no check")
        } catch {
            guard case .interactionRequired = error else { throw error }
            report.step("\(MicrosoftApps.calendar) acquires silently for \(MicrosoftApps.user): interaction_required; its group holds nothing of \(MicrosoftApps.mail)'s")
            let own = try calendar.cache.brokerRequest(loginHint: MicrosoftApps.user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: MicrosoftApps.calendar))
            let reply = try broker.handle(own.url, caller: MicrosoftApps.calendar)
            _ = try calendar.cache.acceptBrokerResponse(reply.url, to: own)
            report.step("\(MicrosoftApps.calendar) asks the broker with its own redirect URI: single sign-on\(reply.prompted ? " after a prompt" : " without a prompt"), checked by the broker")
        }
        report.record("spoofed broker requests answered", 0)
        report.record("tokens taken without the broker's check", taken)
        if taken > 0 {
            report.losses.append(AppLoss(app: MicrosoftApps.mail, lost: taken, unit: "signed-in accounts", causedBy: [MicrosoftApps.calendar]))
        }
        report.verdict = taken > 0
            ? "the broker refused the spoofed redirect URI, yet \(MicrosoftApps.calendar) got a token for \(MicrosoftApps.mail)'s user from the shared group: the shared cache needs no spoofing"
            : "the broker refused the spoofed redirect URI, and \(MicrosoftApps.calendar) could reach \(MicrosoftApps.user)'s account only through the broker's check"
        if mitigated {
            report.limits = ["per-app groups give up silent single sign-on from the shared cache: every app's first sign-in goes to the broker, which must be installed"]
        }
        return report
    }

    /// The broker: its own team and group, on the same store.
    static func broker(_ suite: SimulatedSuite) throws -> BrokerService {
        let team = try TeamIdentifier("UBF8T346G9")
        let group = "com.microsoft.workplacejoin.\(suite.team.rawValue.lowercased())"
        let identity = try AppIdentity(
            bundleID: MicrosoftApps.authenticator, teamID: team, keychainAccessGroups: [AccessGroup(teamID: team, identifier: group)])
        // The broker is of another team: no policy of the run covers its group.
        let broker = try suite.simulate(
            identity, store: suite.store, policy: .none,
            tokens: TokenCacheConfiguration(clientID: MicrosoftApps.authenticatorClient, keychainSharingGroup: group, familyID: "1"))
        return BrokerService(cache: try broker.tokenCache())
    }
}
