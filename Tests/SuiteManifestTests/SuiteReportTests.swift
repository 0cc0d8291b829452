import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

@Suite("Suite check reports")
struct SuiteReportTests {
    func brokenSuite() throws -> Suite {
        try Fixture.suite([
            "com.contoso.calendar": Fixture.app("com.contoso.calendar", redirectURI: "msauth.com.contoso.mail://auth",
                                                urlSchemes: ["msauth.com.contoso.calendar"]),
            "com.contoso.notes": Fixture.app("com.contoso.notes",
                                             entitlements: ["$(AppIdentifierPrefix)com.microsoft.adalcache", "$(AppIdentifierPrefix)com.contoso.notes"],
                                             urlSchemes: ["contoso-notes"]),
        ])
    }

    @Test func textListsEachAppThenTheSummary() throws {
        let report = SuiteChecker.check(try brokenSuite())
        let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "suite /suites/contoso/suite.yaml: 3 apps")
        let mail = try #require(lines.firstIndex(of: "com.contoso.mail"))
        #expect(lines[mail + 1] == "  ok")
        let calendar = try #require(lines.firstIndex(of: "com.contoso.calendar"))
        #expect(lines[calendar + 1].hasPrefix("  error    redirect-uri-distinct: redirect URI 'msauth.com.contoso.mail://auth' is also used by com.contoso.mail"))
        #expect(lines[calendar + 2].hasPrefix("  error    redirect-uri-other-app: redirect URI 'msauth.com.contoso.mail://auth' names com.contoso.mail"))
        let notes = try #require(lines.firstIndex(of: "com.contoso.notes"))
        #expect(lines[notes + 1].hasPrefix("  error    redirect-scheme-registered: "))
        #expect(lines[notes + 2].hasPrefix("  warning  keychain-first-group: "))
        #expect(lines.suffix(2) == ["3 errors, 1 warning", ""])
        #expect(!report.passed)
    }

    @Test func suiteWideFindingsComeLast() throws {
        let report = SuiteChecker.check(try Fixture.suite(["com.contoso.mail": Fixture.app("com.contoso.mail")]))
        #expect(report.text.contains("whole suite\n  info     shared-cache-wipe: "))
        #expect(report.summaryLine == "0 errors, 0 warnings, 1 info")
        #expect(report.passed)
    }

    @Test func findingsKeepAppOrder() throws {
        let report = SuiteChecker.check(try brokenSuite())
        #expect(report.findings.map(\.app) == ["com.contoso.calendar", "com.contoso.calendar", "com.contoso.notes", "com.contoso.notes"])
        #expect(report.findings(for: "com.contoso.mail").isEmpty)
        #expect((report.errorCount, report.warningCount, report.infoCount) == (3, 1, 0))
    }

    @Test func jsonHasFindingsAndSummary() throws {
        let report = SuiteChecker.check(try brokenSuite())
        let data = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["manifest"] as? String == "/suites/contoso/suite.yaml")
        #expect(object["passed"] as? Bool == false)
        #expect(object["summary"] as? [String: Int] == ["errors": 3, "warnings": 1, "info": 0])
        let apps = try #require(object["apps"] as? [[String: Any]])
        #expect(apps.compactMap { $0["app"] as? String } == Fixture.bundleIDs)
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.first?["severity"] as? String == "error")
        #expect(findings.first?["rule"] as? String == "redirect-uri-distinct")
        #expect(findings.first?["app"] as? String == "com.contoso.calendar")
        #expect((findings.first?["message"] as? String)?.isEmpty == false)
    }

    @Test func failureOnlyWhenThereAreErrorsOrStrictWarnings() throws {
        let broken = SuiteChecker.check(try brokenSuite())
        let failure = try #require(SuiteCheckFailure(broken))
        #expect(failure.status == .param)
        #expect(failure.message == "suite check of /suites/contoso/suite.yaml found 3 errors")

        let warnedOnly = SuiteChecker.check(try Fixture.suite([
            "com.contoso.notes": Fixture.app("com.contoso.notes", redirectURI: "contoso-notes://callback"),
        ]))
        #expect(warnedOnly.passed)
        #expect(SuiteCheckFailure(warnedOnly) == nil)
        #expect(SuiteCheckFailure(warnedOnly, strict: true)?.message == "suite check of /suites/contoso/suite.yaml found 0 errors and 1 warning (strict)")
        #expect(SuiteCheckFailure(SuiteChecker.check(try Fixture.suite()), strict: true) == nil)
    }

    @Test func fixtureSuiteReportsOnlyTheLegacyRedirect() throws {
        let report = SuiteChecker.check(try SuiteManifest.load(from: fixture("directory-suite")))
        #expect(report.findings.map(\.rule) == [.redirectURILegacy], "\(report.text)")
        #expect(report.text.contains("Contoso Calendar (com.contoso.calendar)\n  info     redirect-uri-legacy: "))
    }

    @Test func everyRuleHasASummary() {
        for rule in CheckRule.allCases { #expect(!rule.summary.isEmpty) }
        #expect(Set(CheckRule.allCases.map(\.rawValue)).count == CheckRule.allCases.count)
    }
}
