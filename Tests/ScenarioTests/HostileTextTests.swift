import Foundation
import KeychainTestSupport
import SharedKeychain
@testable import Scenarios
import Testing

/// What a scenario's timeline and verdicts show of values a scenario file or the group's items
/// control (issue 27, finding 2): escaped and cut in text, compared exactly.
@Suite("Scenario reports: hostile text")
struct ScenarioHostileTextTests {
    static let forging = "eve\u{1B}[2J\n✔ step 9, com.contoso.mail token accounts: expected ok; got ok"
    static let huge = HostileText.huge

    func isInert(_ text: String) -> Bool { HostileText.isInert(text) }

    @Test func operationsOutcomesAndVerdictsAreEscapedAndCut() {
        var operation = ScenarioOperation(kind: .tokenAcquire)
        operation.account = Self.forging
        operation.group = Self.huge
        #expect(isInert(operation.description))
        #expect(operation.description.count < 1000)

        let outcome = OperationOutcome(started: Date(), seconds: 0.1, status: .success, count: 1, value: Self.forging + Self.huge)
        let failed = OperationOutcome(started: Date(), seconds: 0.1, status: .itemNotFound, message: "no account '\(Self.forging)'")
        for text in [outcome.description, outcome.observed, failed.description] {
            #expect(isInert(text))
            #expect(text.count < 1000)
        }
        // The comparison uses the value itself, not what is shown of it.
        let expected = ExpectedOutcome(count: nil, value: Self.forging + Self.huge)
        #expect(expected.isMet(by: outcome))
        #expect(isInert(expected.description))
        let verdict = ScenarioVerdict(step: 1, subject: "com.contoso.mail token accounts", expected: expected.description, observed: outcome.observed, passed: true)
        #expect(isInert(verdict.description))
        #expect(!verdict.description.contains("\n✔"), "no verdict line forged")
    }
}
