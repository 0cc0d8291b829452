import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// `acquireToken(_:broker:)`: silently when it can; else, as the request's prompt allows, the
/// broker or an interactive sign-in, never a new user unless asked for.
@Suite("Token acquisition with its fallback")
struct TokenAcquisitionTests {
    /// A broker reached in process: the broker app of ``BrokerMessageTests``, told the caller.
    struct InProcessBroker: BrokerChannel {
        let service: BrokerService
        let caller: String
        var redirectURI: String { RedirectURI.msalDefault(bundleID: caller) }

        func send(_ request: BrokerRequest) throws -> BrokerAnswer {
            try service.handle(request.url, caller: caller)
        }
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func aCachedTokenOrARefreshNeedsNoPrompt(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        let hit = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .never))
        #expect(hit.result.source == .cache)
        #expect(hit.brokerPrompted == nil)
        suite.clock.advance(by: 7200)
        let refreshed = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .never)) { Issue.record("no broker"); return nil }
        #expect(refreshed.result.source == .refreshToken)
        #expect(refreshed.brokerPrompted == nil)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func anUnknownAccountIsNotSignedInUnlessAskedFor(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let silent = #expect(throws: TokenCacheError.self) { try suite.mail.acquireToken(TokenRequest(account: "bob@contoso.com", prompt: .never)) }
        guard case .interactionRequired? = silent else { throw TestFailure("not interaction required: \(String(describing: silent))") }
        let refused = #expect(throws: TokenCacheError.self) { try suite.mail.acquireToken(TokenRequest(account: "bob@contoso.com")) }
        guard case .signInNotTried(let account, _, nil)? = refused else { throw TestFailure("not refused: \(String(describing: refused))") }
        #expect(account == "bob@contoso.com")
        #expect(refused?.errorCode == "interaction_required")
        #expect(refused?.status == .itemNotFound)
        #expect(try suite.cacheItems().isEmpty)
        let signedIn = try suite.mail.acquireToken(TokenRequest(account: "bob@contoso.com", prompt: .always))
        #expect(signedIn.result.source == .interactive)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func aKnownAccountWithoutTokensIsSignedInAgain(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        try suite.mail.remove(account: "alice@contoso.com")
        // Mail signed Alice out; her account record stays, so she is signed in again.
        let again = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com"))
        #expect(again.result.source == .interactive)
        #expect(again.brokerPrompted == nil)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func theBrokerAnswersWhenTheAppCanUseIt(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let broker = InProcessBroker(service: try BrokerMessageTests.broker(suite), caller: "com.contoso.mail")
        // The broker is asked only once a prompt follows.
        let first = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .always)) { broker }
        #expect(first.result.source == .broker)
        #expect(first.brokerPrompted == true)
        let cached = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com")) { Issue.record("no broker"); return broker }
        #expect(cached.result.source == .cache)
        // With the group wiped, Calendar asks the broker, which holds Alice's account: no prompt.
        try suite.mail.wipeCacheForAllAccounts()
        let calendar = InProcessBroker(service: broker.service, caller: "com.contoso.calendar")
        let sso = try suite.calendar.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .always)) { calendar }
        #expect(sso.result.source == .broker)
        #expect(sso.brokerPrompted == false)
    }
}
