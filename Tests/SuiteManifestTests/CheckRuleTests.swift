import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest
import TokenCache

/// One misconfiguration: the suite that has it, and the finding it must produce.
struct Misconfiguration: Sendable, CustomTestStringConvertible {
    let rule: CheckRule
    let severity: Severity
    /// The app the finding is about; nil for the whole suite.
    let app: String?
    /// Words the message must contain, so it says why and what to do.
    let mentions: [String]
    let suite: @Sendable () throws -> Suite

    var testDescription: String { "\(rule.rawValue) (\(severity.rawValue))" }
}

private let mail = "com.contoso.mail"
private let calendar = "com.contoso.calendar"
private let notes = "com.contoso.notes"

@Suite("Suite check rules")
struct CheckRuleTests {
    static let misconfigurations: [Misconfiguration] = [
        Misconfiguration(rule: .clientIDShared, severity: .error, app: calendar, mentions: ["same client ID", Fixture.clientID]) {
            try Fixture.suite([calendar: Fixture.app(calendar, clientID: "99999999-0000-0000-0000-000000000000")])
        },
        Misconfiguration(rule: .redirectURIDistinct, severity: .error, app: notes, mentions: ["also used by com.contoso.calendar", "own"]) {
            try Fixture.suite([
                calendar: Fixture.app(calendar, redirectURI: "x-contoso-shared://callback", urlSchemes: ["x-contoso-shared"]),
                notes: Fixture.app(notes, redirectURI: "x-contoso-shared://callback", urlSchemes: ["x-contoso-shared"]),
            ])
        },
        Misconfiguration(rule: .redirectURIRegistered, severity: .error, app: notes, mentions: ["registered_redirect_uris", "msauth.com.contoso.notes://auth"]) {
            try Fixture.suite(registeredRedirectURIs: ["msauth.com.contoso.mail://auth", "msauth.com.contoso.calendar://auth"])
        },
        Misconfiguration(rule: .redirectURIRegistered, severity: .error, app: mail, mentions: ["msauth://code/msauth.com.contoso.mail%3A%2F%2Fauth", "portal"]) {
            try Fixture.suite(registeredRedirectURIs: Fixture.bundleIDs.map { RedirectURI.msalDefault(bundleID: $0) }, [
                mail: Fixture.app(mail, broker: true, certificateAuth: true,
                                  certificateAuthRedirectURI: "msauth://code/msauth.com.contoso.mail%3A%2F%2Fauth", privileged: true),
            ])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .error, app: notes, mentions: ["<scheme>://<host>", "msauth.com.contoso.notes://auth"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "com.contoso.notes/auth")])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .error, app: notes, mentions: ["broker's own scheme", "certificate_auth_redirect_uri"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "msauth://code/msauth.com.contoso.notes%3A%2F%2Fauth")])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .error, app: notes, mentions: ["http"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "http://contoso.com/auth")])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .error, app: notes, mentions: ["the broker only returns tokens"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "contoso-notes://callback", broker: true)])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .warning, app: notes, mentions: ["if the app ever uses one"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "contoso-notes://callback")])
        },
        Misconfiguration(rule: .redirectURIForm, severity: .warning, app: notes, mentions: ["not the MSAL default msauth.com.contoso.notes://auth"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "msauth.com.contoso.notes://callback")])
        },
        Misconfiguration(rule: .redirectURILegacy, severity: .info, app: notes, mentions: ["legacy ADAL form", "still works"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "x-msauth-contoso://com.contoso.notes")])
        },
        Misconfiguration(rule: .redirectURIUniversalLink, severity: .info, app: notes, mentions: ["Associated", "notes.contoso.com", "handleMSALResponse"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "https://notes.contoso.com/auth", urlSchemes: [])])
        },
        Misconfiguration(rule: .redirectURIOtherApp, severity: .error, app: calendar, mentions: ["names com.contoso.mail", "denies tokens", "msauth.com.contoso.calendar://auth"]) {
            try Fixture.suite([calendar: Fixture.app(calendar, redirectURI: "msauth.com.contoso.mail://auth")])
        },
        Misconfiguration(rule: .redirectURIOtherApp, severity: .error, app: calendar, mentions: ["names com.contoso.mail"]) {
            try Fixture.suite([calendar: Fixture.app(calendar, redirectURI: "x-msauth-contoso://com.contoso.mail")])
        },
        Misconfiguration(rule: .redirectURIBundleMismatch, severity: .error, app: notes, mentions: ["'com.fabrikam.notes'", "denies tokens"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "msauth.com.fabrikam.notes://auth")])
        },
        Misconfiguration(rule: .redirectSchemeRegistered, severity: .error, app: notes, mentions: ["'msauth.com.contoso.notes'", "CFBundleURLSchemes", "returns an error at runtime"]) {
            try Fixture.suite([notes: Fixture.app(notes, urlSchemes: ["contoso-notes"])])
        },
        // The seed's own example: three apps, one scheme, the bundle ID in the host.
        Misconfiguration(rule: .urlSchemeUnique, severity: .warning, app: notes, mentions: ["also registered by com.contoso.mail, com.contoso.calendar"]) {
            try Fixture.suite(Dictionary(uniqueKeysWithValues: Fixture.bundleIDs.enumerated().map { index, bundleID in
                (bundleID, Fixture.app(bundleID, redirectURI: "x-msauth-mytestiosapp://\(bundleID)", privileged: index == 0))
            }))
        },
        Misconfiguration(rule: .universalLinkNotAScheme, severity: .warning, app: notes, mentions: ["'https'", "Associated Domains"]) {
            try Fixture.suite([notes: Fixture.app(notes, redirectURI: "https://notes.contoso.com/auth", urlSchemes: ["https"])])
        },
        Misconfiguration(rule: .infoPlistBundleID, severity: .error, app: notes, mentions: ["'com.contoso.calendar'", "another app's Info.plist"]) {
            try Fixture.suite([notes: Fixture.app(notes, bundleIdentifier: calendar)])
        },
        Misconfiguration(rule: .brokerQuerySchemes, severity: .error, app: mail, mentions: ["lacks msauth and msauthv2", "canOpenURL"]) {
            try Fixture.suite([mail: Fixture.app(mail, broker: true, privileged: true, queriesSchemes: [])])
        },
        Misconfiguration(rule: .brokerQuerySchemes, severity: .error, app: mail, mentions: ["lacks msauthv2"]) {
            try Fixture.suite([mail: Fixture.app(mail, broker: true, privileged: true, queriesSchemes: ["msauth"])])
        },
        Misconfiguration(rule: .certificateAuthBroker, severity: .error, app: mail, mentions: ["broker: true"]) {
            try Fixture.suite([mail: Fixture.app(mail, certificateAuth: true,
                                                 certificateAuthRedirectURI: "msauth://code/msauth.com.contoso.mail%3A%2F%2Fauth", privileged: true)])
        },
        Misconfiguration(rule: .certificateAuthRedirect, severity: .error, app: mail, mentions: ["certificate_auth_redirect_uri: msauth://code/msauth.com.contoso.mail%3A%2F%2Fauth"]) {
            try Fixture.suite([mail: Fixture.app(mail, broker: true, certificateAuth: true, privileged: true)])
        },
        Misconfiguration(rule: .certificateAuthRedirect, severity: .error, app: mail, mentions: ["URL-encoded"]) {
            try Fixture.suite([mail: Fixture.app(mail, broker: true, certificateAuth: true,
                                                 certificateAuthRedirectURI: "msauth://code/msauth.com.contoso.mail://auth", privileged: true)])
        },
        Misconfiguration(rule: .teamShared, severity: .error, app: notes, mentions: ["ZZZZZ99999", "errSecMissingEntitlement (-34018)"]) {
            try Fixture.suite([notes: Fixture.app(notes, team: Fixture.otherTeam)])
        },
        Misconfiguration(rule: .keychainGroupShared, severity: .error, app: notes, mentions: ["'com.contoso.notescache'", "'com.microsoft.adalcache'"]) {
            try Fixture.suite([notes: Fixture.app(notes, keychainGroup: "com.contoso.notescache")])
        },
        Misconfiguration(rule: .entitlementsValid, severity: .error, app: notes, mentions: ["'$(AppIdentifierPrefix)bad group'"]) {
            try Fixture.suite([notes: Fixture.app(notes, entitlements: ["$(AppIdentifierPrefix)bad group", "$(AppIdentifierPrefix)com.microsoft.adalcache"])])
        },
        Misconfiguration(rule: .entitlementsValid, severity: .error, app: notes, mentions: ["ZZZZZ99999.com.microsoft.adalcache", "belongs to team ZZZZZ99999"]) {
            try Fixture.suite([notes: Fixture.app(notes, entitlements: ["ZZZZZ99999.com.microsoft.adalcache"])])
        },
        Misconfiguration(rule: .keychainGroupEntitled, severity: .error, app: notes,
                         mentions: ["ABCDE12345.com.microsoft.adalcache", "$(AppIdentifierPrefix)com.microsoft.adalcache", "errSecMissingEntitlement (-34018)"]) {
            try Fixture.suite([notes: Fixture.app(notes, entitlements: ["$(AppIdentifierPrefix)com.contoso.notes"])])
        },
        Misconfiguration(rule: .keychainFirstGroup, severity: .warning, app: notes, mentions: ["first", "$(AppIdentifierPrefix)com.contoso.notes first"]) {
            try Fixture.suite([notes: Fixture.app(notes, entitlements: ["$(AppIdentifierPrefix)com.microsoft.adalcache", "$(AppIdentifierPrefix)com.contoso.notes"])])
        },
        Misconfiguration(rule: .sharedCacheWipe, severity: .info, app: nil, mentions: ["3 apps share com.microsoft.adalcache", "privileged: true"]) {
            try Fixture.suite([mail: Fixture.app(mail)])
        },
        Misconfiguration(rule: .intuneCacheGroup, severity: .error, app: notes,
                         mentions: ["ABCDE12345.com.contoso.notes (ADALCacheKeychainGroupOverride names it)", "set ADALCacheKeychainGroupOverride to 'com.microsoft.adalcache'"]) {
            try Fixture.suite([notes: Fixture.app(notes, intune: IntuneSettings(cacheGroupOverride: "com.contoso.notes"))])
        },
    ]

    @Test func aCorrectSuiteHasNoFindings() throws {
        let report = SuiteChecker.check(try Fixture.suite(registeredRedirectURIs: Fixture.bundleIDs.map { RedirectURI.msalDefault(bundleID: $0) }))
        #expect(report.findings == [])
        #expect(report.passed)
    }

    @Test(arguments: misconfigurations)
    func misconfigurationIsFound(_ case: Misconfiguration) throws {
        let report = SuiteChecker.check(try `case`.suite())
        let matching = report.findings(`case`.rule).filter { $0.app == `case`.app && $0.severity == `case`.severity }
        #expect(matching.count == 1, "findings: \(report.findings)")
        for word in `case`.mentions {
            #expect(matching.first?.message.contains(word) == true, "'\(word)' not in: \(matching.first?.message ?? "nothing")")
        }
        #expect(report.passed == (report.errorCount == 0))
    }

    @Test func everyRuleHasAFailingCase() {
        let covered = Set(Self.misconfigurations.map(\.rule))
        #expect(covered == Set(CheckRule.allCases))
    }

    // Passing cases, rule by rule: the configurations the seeds accept.

    @Test func onlyTheAppsThatCopiedARedirectURIAreBlamed() throws {
        let report = SuiteChecker.check(try Fixture.suite([
            calendar: Fixture.app(calendar, redirectURI: "msauth.com.contoso.mail://auth", urlSchemes: ["msauth.com.contoso.calendar"]),
        ]))
        #expect(report.findings(.redirectURIDistinct).map(\.app) == [calendar])
        #expect(report.findings(.redirectURIOtherApp).map(\.app) == [calendar])
    }

    @Test func clientIDsCompareWithoutCase() throws {
        let report = SuiteChecker.check(try Fixture.suite([calendar: Fixture.app(calendar, clientID: Fixture.clientID.uppercased())]))
        #expect(report.findings(.clientIDShared).isEmpty)
    }

    @Test func majorityDecidesWhoDiffers() throws {
        // Two apps agree, so the first app is the odd one out, not the other two.
        let report = SuiteChecker.check(try Fixture.suite([mail: Fixture.app(mail, clientID: "other", privileged: true)]))
        #expect(report.findings(.clientIDShared).map(\.app) == [mail])
    }

    @Test func legacyRedirectURIWithRegisteredSchemeIsNoError() throws {
        // The seed's example: x-msauth-mytestiosapp://com.myapp.mytestapp.
        let app = Fixture.app("com.myapp.mytestapp", redirectURI: "x-msauth-mytestiosapp://com.myapp.mytestapp", privileged: true)
        let report = SuiteChecker.check(try Fixture.suite(apps: [app]))
        #expect(report.findings.map(\.rule) == [.redirectURILegacy])
        #expect(report.passed)
    }

    @Test func universalLinksNeedNoURLScheme() throws {
        let report = SuiteChecker.check(try Fixture.suite([notes: Fixture.app(notes, redirectURI: "https://notes.contoso.com/auth", urlSchemes: [])]))
        #expect(report.findings.map(\.rule) == [.redirectURIUniversalLink])
        #expect(report.findings(.redirectSchemeRegistered).isEmpty)
    }

    @Test func schemeRegisteredWithTheBundleIDVariablePasses() throws {
        let report = SuiteChecker.check(try Fixture.suite([
            notes: Fixture.app(notes, urlSchemes: ["msauth.$(PRODUCT_BUNDLE_IDENTIFIER)"], bundleIdentifier: "$(PRODUCT_BUNDLE_IDENTIFIER)"),
        ]))
        #expect(report.findings == [])
    }

    @Test func schemesCompareWithoutCase() throws {
        let report = SuiteChecker.check(try Fixture.suite([notes: Fixture.app(notes, urlSchemes: ["MSAUTH.com.contoso.notes"])]))
        #expect(report.findings == [])
    }

    @Test func brokerAppWithBothQuerySchemesPasses() throws {
        let report = SuiteChecker.check(try Fixture.suite([mail: Fixture.app(mail, broker: true, privileged: true)]))
        #expect(report.findings == [])
    }

    @Test func appWithoutBrokerNeedsNoQuerySchemes() throws {
        let report = SuiteChecker.check(try Fixture.suite([notes: Fixture.app(notes, broker: false, queriesSchemes: [])]))
        #expect(report.findings(.brokerQuerySchemes).isEmpty)
    }

    @Test func certificateAuthWithBrokerAndEncodedURIPasses() throws {
        let certificateURI = RedirectURI.certificateAuth(for: "msauth.com.contoso.mail://auth")
        let registered = Fixture.bundleIDs.map { RedirectURI.msalDefault(bundleID: $0) } + [certificateURI]
        let report = SuiteChecker.check(try Fixture.suite(registeredRedirectURIs: registered, [
            // Lower-case percent-encoding is the same URI.
            mail: Fixture.app(mail, broker: true, certificateAuth: true, certificateAuthRedirectURI: certificateURI.lowercased(), privileged: true),
        ]))
        #expect(report.findings(.certificateAuthRedirect).isEmpty)
        #expect(report.findings == [])
    }

    @Test func certificateAuthURIIsTheSeedsEncoding() {
        #expect(RedirectURI.certificateAuth(for: "x-msauth-mytestiosapp://com.myapp.mytestapp")
                == "msauth://code/x-msauth-mytestiosapp%3A%2F%2Fcom.myapp.mytestapp")
    }

    @Test func ownGroupFirstThenSharedGroupPasses() throws {
        let report = SuiteChecker.check(try Fixture.suite([
            notes: Fixture.app(notes, entitlements: ["ABCDE12345.com.contoso.notes", "$(TeamIdentifierPrefix)com.microsoft.adalcache"]),
        ]))
        #expect(report.findings == [])
    }

    @Test func aSingleAppSuiteHasNoSharingFindings() throws {
        let app = Fixture.app(notes, entitlements: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let report = SuiteChecker.check(try Fixture.suite(apps: [app]))
        #expect(report.findings == [])
    }

    @Test func redirectURIsAreParsedAsMSALRequires() throws {
        let uri = try #require(RedirectURI("msauth.com.contoso.mail://auth"))
        #expect(uri.scheme == "msauth.com.contoso.mail")
        #expect(uri.host == "auth")
        #expect(uri.remainder == "")
        #expect(uri.msalSchemeBundleID == "com.contoso.mail")
        let link = try #require(RedirectURI("https://contoso.com/auth?x=1"))
        #expect(link.isUniversalLink && link.host == "contoso.com" && link.remainder == "/auth?x=1")
        for bad in ["", "auth", "msauth.com.contoso.mail:/auth", "://auth", "1abc://auth", "msauth.com.contoso.mail://", "my scheme://x"] {
            #expect(RedirectURI(bad) == nil, "\(bad)")
        }
    }
}
