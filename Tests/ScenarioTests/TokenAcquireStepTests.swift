import Foundation
import KeychainStorage
import Scenarios
import Testing

/// A scenario's `do: token acquire` is `token acquire`: the same TokenCache call, so the same
/// fallback (issue 28: the step used to sign in any account it was given).
@Suite("Scenario token acquire: the command's fallback")
struct TokenAcquireStepTests {
    @Test("an account the cache does not know is not signed in; one it knows is signed in again")
    func unknownAccountsAreRefusedKnownOnesSignedInAgain() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("acquire-fallback", steps: """
              - {app: com.contoso.mail, do: token acquire, account: bob@contoso.com, expect: interaction_required}
              - {app: com.contoso.mail, do: token accounts, expect: {count: 0}}
              - {app: com.contoso.mail, do: token signin, user: alice@contoso.com}
              - {app: com.contoso.mail, do: token remove, account: alice@contoso.com}
              - {app: com.contoso.mail, do: token acquire, account: alice@contoso.com, silent: true, expect: interaction_required}
              - {app: com.contoso.mail, do: token acquire, account: alice@contoso.com, expect: {value: interactive}}
            """)
        let report = try ScenarioRunner(scenario: Scenario.load(from: file), store: InMemoryStore()).run(launcher: .inProcess)
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
    }
}
