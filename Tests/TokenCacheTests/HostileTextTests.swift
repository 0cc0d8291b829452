import Foundation
import KeychainTestSupport
import SharedKeychain
import Testing
@testable import TokenCache

/// What the token cache says about accounts and wipe records any app of the group can write
/// (issue 27, finding 2): its descriptions and messages show them escaped and cut, while the
/// values themselves (and the JSON export) stay exact.
@Suite("Token cache: hostile text in accounts and wipe records")
struct HostileTextTests {
    static let forging = HostileText.forging
    static let huge = HostileText.huge

    func isInert(_ text: String) -> Bool { HostileText.isInert(text) }

    @Test func wipeRecordShowsOneLineAndKeepsTheBundleIDExact() {
        for bundleID in [Self.forging, Self.huge] {
            let record = WipeRecord(bundleID: bundleID, wipeTime: Date(timeIntervalSince1970: 0))
            #expect(isInert(record.description))
            #expect(record.description.count < 300)
            #expect(!record.description.contains("\n"), "one line, no forged second")
            #expect(record.bundleID == bundleID)
            let message = TokenCacheError.interactionRequired(reason: "no token", lastWipe: record).message
            #expect(isInert(message))
        }
        #expect(WipeRecord(bundleID: Self.huge, wipeTime: Date()).description.contains("…(4194304 chars)"))
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func accountsAreExactAndTheirDescriptionsEscaped(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let result = try suite.mail.signIn(username: Self.forging)
        #expect(isInert(result.description))
        let accounts = try suite.calendar.accounts()
        #expect(accounts.map(\.username) == [Self.forging])
        #expect(accounts.allSatisfy { isInert($0.description) })
        // The export is JSON: the username exact, only JSON's escaping.
        let export = try suite.mail.exportCache()
        let json = try #require(try JSONSerialization.jsonObject(with: export) as? [String: Any])
        let exported = try #require(json["Account"] as? [String: [String: Any]])
        #expect(exported.values.map { $0["username"] as? String } == [Self.forging])
        #expect(!String(decoding: export, as: UTF8.self).contains("\u{1B}"))
        // An error naming an account it does not know quotes it escaped.
        do {
            _ = try suite.mail.acquireTokenSilent(account: Self.huge + Self.forging, scopes: ["user.read"])
            Issue.record("an unknown account must fail")
        } catch {
            #expect(isInert(error.message))
            #expect(error.message.count < 1000)
        }
    }
}
