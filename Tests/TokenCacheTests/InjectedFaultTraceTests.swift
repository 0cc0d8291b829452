import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// A fault plan of one rule: the first `function` call fails with `status`.
private final class FirstCallFault: KeychainFaultSource {
    let function: SecItemFunction
    let status: KeychainStatus
    private let fired = Mutex(false)

    init(_ function: SecItemFunction, _ status: KeychainStatus) {
        self.function = function
        self.status = status
    }

    func fault(for function: SecItemFunction, groups: [String], app: String) -> InjectedFault? {
        guard function == self.function else { return nil }
        return fired.withLock { fired in
            defer { fired = true }
            return fired ? nil : InjectedFault(rule: 1, function: function, status: status, group: nil)
        }
    }
}

/// Issue 30, point 4: a fault the device's plan injects reaches MSAL's code as the device's own
/// status would, and `--trace` marks the call injected.
@Suite("Injected faults in the token cache's trace")
struct InjectedFaultTraceTests {
    /// IdentityCore `util/ios/MSIDKeychainUtil.m` `appDefaultAccessGroup`: a probe read answered
    /// errSecInteractionNotAllowed is followed by a delete of the probe and an add; the trace
    /// marks the read injected, and only it.
    @Test func appDefaultAccessGroupOnAnInjectedInteractionNotAllowedDeletesAndAddsTheProbeAndTheTraceSaysInjected() throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = InMemoryStore()
        func identity(_ bundleID: String) throws -> AppIdentity {
            try AppIdentity(
                bundleID: bundleID, teamID: team,
                entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"]), source: bundleID)
        }
        let configuration = TokenCacheConfiguration(clientID: Suite.mailClient, familyID: "1")
        // Mail's first launch adds the probe, with no plan.
        _ = try TokenCache(keychain: Keychain(app: try identity("com.contoso.mail"), store: store), configuration: configuration)
        let recorder = KeychainTraceTests.Recorder()
        var traced = configuration
        traced.trace = recorder.trace
        let calendar = Keychain(app: try identity("com.contoso.calendar"), store: store, faults: FirstCallFault(.copyMatching, .interactionNotAllowed))
        _ = try TokenCache(keychain: calendar, configuration: traced)
        let calls = recorder.take()
        #expect(calls.map { "\($0.function.rawValue) \($0.status.name) \($0.injected != nil)" } == [
            "SecItemCopyMatching errSecInteractionNotAllowed true",
            "SecItemDelete errSecSuccess false",
            "SecItemAdd errSecSuccess false",
        ])
        #expect(calls.first?.description.hasSuffix("-> errSecInteractionNotAllowed [injected: fault plan rule 1]") == true)
    }
}
