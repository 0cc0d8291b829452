import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The broker's messages on both backends: a response only the requesting app's broker key
/// opens, its hash checked, the caller's bundle ID against the redirect URI.
@Suite("Broker messages")
struct BrokerMessageTests {
    /// The broker: an app of another team with its own group, on the same store.
    static func broker(_ suite: Suite) throws -> BrokerService {
        let team = try TeamIdentifier("UBF8T346G9")
        let app = try AppIdentity(
            bundleID: "com.microsoft.azureauthenticator", teamID: team,
            keychainAccessGroups: [AccessGroup(teamID: team, identifier: "com.microsoft.workplacejoin.\(suite.team.rawValue.lowercased())")])
        let cache = try TokenCache(
            keychain: Keychain(app: app, store: suite.store, now: suite.clock.function),
            configuration: TokenCacheConfiguration(
                clientID: "4813382a-8fa7-425e-ab75-3b753aab3abb", keychainSharingGroup: app.keychainAccessGroups[0].identifier, familyID: "1"),
            now: suite.clock.function)
        return BrokerService(cache: cache)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func onlyTheRequestingAppOpensTheResponse(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let broker = try Self.broker(suite)
        let request = try suite.mail.brokerRequest(loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.mail://auth")
        // The key lives in the apps' MSAL sharing group (MSIDBrokerKeyProvider): Calendar, of
        // the same group, has the same one.
        #expect(try suite.mail.brokerKey() == request.brokerKey)
        #expect(try suite.calendar.brokerKey() == request.brokerKey)
        #expect(try BrokerRequest(url: request.url) == request)

        let answer = try broker.handle(request.url, caller: "com.contoso.mail")
        #expect(answer.prompted)
        #expect(!answer.url.contains("emulated-acc"))
        #expect(answer.url.hasPrefix("msauth.com.contoso.mail://auth?response="))

        // Delivered to Calendar: the group's key opens it, but it is a response for Mail's client.
        let calendarRequest = try suite.calendar.brokerRequest(loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.calendar://auth")
        #expect(throws: TokenCacheError.self) { try suite.calendar.acceptBrokerResponse(answer.url, to: calendarRequest) }
        // A changed hash is refused.
        let tampered = answer.url.replacingOccurrences(of: "hash=", with: "hash=00")
        #expect(throws: TokenCacheError.self) { try suite.mail.acceptBrokerResponse(tampered, to: request) }
        #expect(try suite.cacheItems().isEmpty)

        let result = try suite.mail.acceptBrokerResponse(answer.url, to: request)
        #expect(result.source == .broker)
        #expect(result.account.username == "alice@contoso.com")
        #expect(try suite.mail.accounts().map(\.username) == ["alice@contoso.com"])

        // The broker holds alice now: the next request is answered without a prompt.
        let again = try broker.handle(calendarRequest.url, caller: "com.contoso.calendar")
        #expect(!again.prompted)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func aCallerPresentingAnotherAppsRedirectURIIsRefused(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let broker = try Self.broker(suite)
        let spoofed = try suite.calendar.brokerRequest(loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.mail://auth")
        do {
            _ = try broker.handle(spoofed.url, caller: "com.contoso.calendar")
            Issue.record("the broker answered a spoofed request")
        } catch {
            #expect(error.status == .authFailed)
            #expect(error.message.contains("comes from com.contoso.calendar") && error.message.contains("belongs to com.contoso.mail"))
        }
        #expect(BrokerRequest.bundleID(inRedirectURI: "x-msauth-app://com.contoso.legacy") == "com.contoso.legacy")
        #expect(BrokerRequest.bundleID(inRedirectURI: "https://contoso.com/auth") == nil)
        #expect(throws: TokenCacheError.self) { try BrokerRequest(url: "msauthv2://broker?client_id=x") }
    }
}

/// The MSAL redirect URI, spelled in one place.
@Suite("Redirect URIs")
struct RedirectURITests {
    @Test func theMSALDefaultIsBuiltAndReadInOnePlace() {
        #expect(RedirectURI.msalScheme(bundleID: "com.contoso.mail") == "msauth.com.contoso.mail")
        #expect(RedirectURI.msalDefault(bundleID: "com.contoso.mail") == "msauth.com.contoso.mail://auth")
        #expect(RedirectURI.bundleID(in: RedirectURI.msalDefault(bundleID: "com.contoso.mail")) == "com.contoso.mail")
        #expect(RedirectURI.bundleID(in: "x-msauth-app://com.contoso.legacy") == "com.contoso.legacy")
        #expect(RedirectURI.bundleID(in: "msauth.com.contoso.mail://other") == nil)
        #expect(RedirectURI.bundleID(in: "https://contoso.com/auth") == nil)
    }
}
