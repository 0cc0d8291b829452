import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The server's `invalid_grant`/`client_mismatch` answer to a family refresh token from a
/// client outside the family, and what MSAL does about it (IdentityCore
/// `MSIDDefaultSilentTokenRequest.m` `updateFamilyIdCacheWithServerError`,
/// `MSIDDefaultTokenCacheAccessor.m` `updateAppMetadataWithFamilyId`).
@Suite("client_mismatch")
struct ClientMismatchTests {
    static let notesClient = "0a1b2c3d-4444-4444-8444-444444444444"

    /// MSIDDefaultSilentTokenRequestTests
    /// testAcquireTokenSilent_whenFamilyRefreshTokenInCache_andNoAppRefresh_ClientMismatch_shouldSkip:
    /// the app believes it is in family 1, the server does not; the family token is refused
    /// with client_mismatch, the app metadata gets `family_id` "", and the next silent request
    /// does not try the family token again.
    @Test(arguments: Backend.memoryAndKeyring)
    func testAcquireTokenSilent_whenFamilyRefreshTokenInCache_andNoAppRefresh_ClientMismatch_shouldSkip(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        let familyToken = try suite.item(account: user, service: "refreshtoken-1--")
        let notes = try suite.app(
            "com.contoso.notes", client: Self.notesClient, family: "1", issuer: EmulatedIssuer(clientsOutsideFamily: [Self.notesClient.uppercased()]))
        let metadata = { suite.json(try suite.item(account: "login.windows.net", service: "appmetadata-\(Self.notesClient)")) }
        #expect(try metadata().isEmpty)

        let first = #expect(throws: TokenCacheError.self) {
            try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        }
        guard case .interactionRequired(let reason, _)? = first else {
            Issue.record("expected interactionRequired, got \(String(describing: first))")
            return
        }
        #expect(reason.contains("invalid_grant (client_mismatch)"))
        #expect(try metadata() == [
            "client_id": .string(Self.notesClient), "environment": .string("login.windows.net"), "family_id": .string(""),
        ])
        // The refused family token stays: it is the family's, not this app's.
        #expect(try suite.item(account: user, service: "refreshtoken-1--") == familyToken)

        let second = #expect(throws: TokenCacheError.self) {
            try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        }
        guard case .interactionRequired(let secondReason, _)? = second else {
            Issue.record("expected interactionRequired, got \(String(describing: second))")
            return
        }
        #expect(secondReason.hasPrefix("no refresh token of client \(Self.notesClient) or its family"))
    }

    /// A client the server keeps out of the family gets no foci at sign-in: its app metadata
    /// says "", no family token is written by it, and the family's token is left as it was.
    @Test(arguments: Backend.memoryAndKeyring)
    func clientOutsideTheFamilyIsSentNoFamilyAtSignIn(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        let familyToken = try suite.item(account: user, service: "refreshtoken-1--")
        let notes = try suite.app("com.contoso.notes", client: Self.notesClient, family: "1", issuer: EmulatedIssuer(clientsOutsideFamily: [Self.notesClient]))
        try notes.signIn(username: "alice@contoso.com")
        let metadata = suite.json(try suite.item(account: "login.windows.net", service: "appmetadata-\(Self.notesClient)"))
        #expect(metadata["family_id"] == .string(""))
        #expect(try suite.item(account: user, service: "refreshtoken-1--") == familyToken)
        #expect(suite.json(try suite.item(account: user, service: "refreshtoken-\(Self.notesClient)--"))["family_id"] == nil)
    }

    /// An app of no family without app metadata tries the family token MSAL assumes ("1") once;
    /// the server's client_mismatch makes MSAL record that it is in no family.
    @Test(arguments: Backend.memoryAndKeyring)
    func appOfNoFamilyRecordsNoFamilyAfterClientMismatch(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        #expect(throws: TokenCacheError.self) {
            try suite.legacy.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        }
        let metadata = suite.json(try suite.item(account: "login.windows.net", service: "appmetadata-\(Suite.legacyClient)"))
        #expect(metadata["family_id"] == .string(""))
    }
}
