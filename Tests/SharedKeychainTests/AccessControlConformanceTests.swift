import Foundation
import Synchronization
import Testing
@testable import SharedKeychain

/// Items whose access control asks the user, on every backend and through both APIs: the item
/// keeps its flags, and the emulated device's answer decides when its data is read or it is
/// updated; deleting never asks.
@Suite("Keychain conformance: access control")
struct AccessControlConformanceTests {
    /// The device's answer, which a test changes as it goes.
    final class Answer: Sendable {
        let decision = Mutex(AuthenticationDecision.allow)
        var provider: AuthenticationProvider { { [self] in decision.withLock { $0 } } }
        func set(_ value: AuthenticationDecision) { decision.withLock { $0 = value } }
    }

    struct Fixture {
        let app: any KeychainAPI
        let answer = Answer()

        init(_ target: Target) throws {
            let team = try TeamIdentifier(Backend.uniqueTeamID())
            app = target.api.client(
                app: try AppIdentity(bundleID: "com.contoso.mail", teamID: team), store: try target.backend.makeStore(),
                authentication: answer.provider)
            var protected = NewItem(account: "guarded", service: "svc", data: Data("guarded secret".utf8), accessibility: .whenPasscodeSetThisDeviceOnly)
            protected.accessControl = [.userPresence]
            try app.add(protected)
            try app.add(NewItem(account: "plain", service: "svc", data: Data("plain secret".utf8)))
        }
    }

    let guarded = KeychainQuery(account: "guarded")
    let everything = KeychainQuery(service: "svc")

    @Test(arguments: Target.all)
    func theItemKeepsItsFlagsAndTheDeviceAllowsByDefault(_ target: Target) throws {
        let fixture = try Fixture(target)
        let item = try fixture.app.first(guarded)
        #expect(item.accessControl == [.userPresence])
        #expect(item.accessibility == .whenPasscodeSetThisDeviceOnly)
        #expect(item.data == Data("guarded secret".utf8))
        #expect(try fixture.app.first(KeychainQuery(account: "plain")).accessControl == nil)
    }

    @Test(arguments: Target.all, [(AuthenticationDecision.deny, KeychainStatus.authFailed), (.cancel, .userCanceled)])
    func aRefusedAuthenticationFailsReadsOfDataAndUpdatesNotDeletes(_ target: Target, _ refusal: (AuthenticationDecision, KeychainStatus)) throws {
        let fixture = try Fixture(target)
        fixture.answer.set(refusal.0)
        let read = #expect(throws: KeychainError.self) { try fixture.app.first(guarded) }
        #expect(read?.status == refusal.1)
        // A search that returns the item's data among others fails as a whole.
        let all = #expect(throws: KeychainError.self) { try fixture.app.copyMatching(everything, limit: .all) }
        #expect(all?.status == refusal.1)
        let update = #expect(throws: KeychainError.self) { try fixture.app.update(guarded, with: ItemChange(data: Data("new".utf8))) }
        #expect(update?.status == refusal.1)
        // Attributes alone never ask; items without such an access control are untouched.
        let attributes = try fixture.app.copyMatching(guarded, limit: .one, returningData: false, authenticationUI: .allow)
        #expect(attributes.map(\.account) == ["guarded"])
        #expect(try fixture.app.first(KeychainQuery(account: "plain")).data == Data("plain secret".utf8))
        try fixture.app.update(KeychainQuery(account: "plain"), with: ItemChange(label: "still fine"))
        // Deleting does not ask.
        #expect(try fixture.app.delete(guarded) == 1)
        fixture.answer.set(.allow)
        #expect(throws: KeychainError.self) { try fixture.app.first(guarded) }
    }

    @Test(arguments: Target.all)
    func noUIMeansInteractionNotAllowedAndSkipLeavesTheItemOut(_ target: Target) throws {
        let fixture = try Fixture(target)
        // The device would allow, but the call may not ask.
        let fail = #expect(throws: KeychainError.self) {
            try fixture.app.copyMatching(guarded, limit: .one, returningData: true, authenticationUI: .fail)
        }
        #expect(fail?.status == .interactionNotAllowed)
        let update = #expect(throws: KeychainError.self) {
            try fixture.app.update(guarded, with: ItemChange(label: "x"), authenticationUI: .fail)
        }
        #expect(update?.status == .interactionNotAllowed)
        // Skip: the item is as if absent, whatever the device would answer.
        fixture.answer.set(.deny)
        let skipped = try fixture.app.copyMatching(everything, limit: .all, returningData: true, authenticationUI: .skip)
        #expect(skipped.map(\.account) == ["plain"])
        let none = #expect(throws: KeychainError.self) {
            try fixture.app.copyMatching(guarded, limit: .one, returningData: true, authenticationUI: .skip)
        }
        #expect(none?.status == .itemNotFound)
        #expect(try fixture.app.update(everything, with: ItemChange(label: "skipped"), authenticationUI: .skip) == 1)
        fixture.answer.set(.allow)
        #expect(try fixture.app.first(guarded).label == nil)
    }
}
