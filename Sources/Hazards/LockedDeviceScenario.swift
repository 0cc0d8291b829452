import Foundation
import Mitigations
import SharedKeychain
import TokenCache

/// What a hazard may do to the device around the keychain. The CLI's device writes its lock
/// state file and has gnome-keyring lock the protected shards; tests set a lock state in memory.
public protocol DeviceControl: Sendable {
    /// Puts the device in `state` (`device lock`, `device reboot`, `device unlock`).
    func setLock(_ state: DeviceLockState) throws
}

/// `locked-device`: an app whose tokens are written with Apple's default class, `whenUnlocked`
/// (MSAL itself writes `afterFirstUnlockThisDeviceOnly`, IdentityCore `MSIDKeychainTokenCache.m`), so the
/// background refresh an app runs while the phone is locked cannot read its refresh token and
/// fails with errSecInteractionNotAllowed (-25308), a recurring MSAL report. Mitigated: the
/// cache writes `afterFirstUnlock` items, readable once the device was unlocked after boot.
struct LockedDeviceScenario {
    let store: any ItemStore
    let mitigated: Bool
    let device: any DeviceControl
    static let refreshes = 3

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer {
            try? device.setLock(.unlocked)
            suite.cleanUp([group])
        }
        var report = HazardReport(hazard: Hazard.lockedDevice.rawValue, mitigated: mitigated, store: store.name)
        report.groups = [group]
        let accessibility: Accessibility = mitigated ? .afterFirstUnlock : .whenUnlocked
        report.mitigations = mitigated ? ["tokens written afterFirstUnlock"] : []
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", accessibility: accessibility)
        try mail.cache.signIn(username: MicrosoftApps.user)
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user); its tokens are written \(accessibility.rawValue)")

        try device.setLock(DeviceLockState(locked: true, unlockedSinceBoot: true))
        report.step("the user locks the phone (unlocked since boot)")
        var failed = 0
        for round in 1...Self.refreshes {
            suite.clock.advance(by: 3600)
            do {
                let result = try mail.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes, forceRefresh: true)
                report.step("\(MicrosoftApps.mail) background refresh \(round) while locked: ok (\(result.source))")
            } catch {
                // One plain catch: `catch where` here crashes the Swift 6.3 compiler.
                guard error.status == .interactionNotAllowed else { throw error }
                failed += 1
                report.step("\(MicrosoftApps.mail) background refresh \(round) while locked: \(error.status.name) (\(error.status.rawValue))")
            }
        }
        try device.setLock(.unlocked)
        let after = try mail.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
        report.step("the user unlocks the phone; \(MicrosoftApps.mail) acquires silently: ok (\(after.source))")

        report.record("background refreshes", Self.refreshes)
        report.record("failed while locked", failed)
        if failed > 0 {
            report.losses.append(AppLoss(app: MicrosoftApps.mail, lost: failed, unit: "background refreshes", causedBy: ["the device lock"]))
        }
        report.verdict = failed == 0
            ? "every background refresh while locked succeeded: the tokens are afterFirstUnlock"
            : "\(failed) of \(Self.refreshes) background refreshes failed with errSecInteractionNotAllowed: whenUnlocked tokens are out of reach while the phone is locked"
        if mitigated {
            report.limits = ["afterFirstUnlock items are readable by anything on the device that can run after its first unlock: the tokens are less protected at rest while the phone is locked, and still unreachable after a reboot until the first unlock"]
        }
        return report
    }
}
