/// Applies the seeds' rules for sharing sign-in across a suite of iOS apps to a ``Suite``, with
/// nothing but its configuration: what would fail at runtime (MSAL errors, the broker denying
/// tokens, errSecMissingEntitlement) is reported before anything runs.
public struct SuiteChecker {
    let suite: Suite
    private(set) var findings: [Finding] = []

    /// Every rule's findings for `suite`.
    public static func check(_ suite: Suite) -> SuiteReport {
        var checker = SuiteChecker(suite: suite)
        checker.checkRegistration()
        for app in suite.apps {
            checker.checkRedirectURI(of: app)
            checker.checkInfoPlist(of: app)
            checker.checkBroker(of: app)
            checker.checkKeychain(of: app)
        }
        checker.checkSuiteKeychain()
        return SuiteReport(suite: suite, findings: checker.findings)
    }

    init(suite: Suite) {
        self.suite = suite
    }

    mutating func report(_ severity: Severity, _ rule: CheckRule, _ app: SuiteApp?, _ message: String) {
        findings.append(Finding(severity, rule, app: app?.bundleID, message))
    }

    /// The other apps of the suite.
    func others(than app: SuiteApp) -> [SuiteApp] {
        suite.apps.filter { $0.bundleID != app.bundleID }
    }

    /// For a setting every app must share: the value most apps have (on a tie, the first
    /// app's), the apps that have it, and the apps that differ.
    func consensus(_ value: (SuiteApp) -> String) -> (value: String, holders: [SuiteApp], dissenters: [SuiteApp]) {
        var counts: [String: Int] = [:]
        for app in suite.apps { counts[value(app), default: 0] += 1 }
        var best = value(suite.apps[0])
        for app in suite.apps where counts[value(app), default: 0] > counts[best, default: 0] {
            best = value(app)
        }
        return (best, suite.apps.filter { value($0) == best }, suite.apps.filter { value($0) != best })
    }
}

extension [SuiteApp] {
    /// `com.contoso.mail, com.contoso.calendar`, for messages.
    var bundleIDList: String { map(\.bundleID).joined(separator: ", ") }
}
