import Foundation
import Mitigations
import SharedKeychain
import Simulation
import TokenCache

/// `locked-device`, two cases.
///
/// 1. MSAL writes every item `afterFirstUnlockThisDeviceOnly` (IdentityCore
///    `MSIDKeychainTokenCache.m`), so its tokens are out of reach only between a reboot and the
///    first unlock: a background launch in that window (a silent push, a background fetch)
///    fails with errSecInteractionNotAllowed (-25308). Once the user has unlocked, a refresh
///    while locked succeeds.
/// 2. Mail keeps an item of its own (its mail-server credential) with Apple's default class,
///    `whenUnlocked`: every background read of it while the phone is locked fails, even after
///    the first unlock.
///
/// Deployable: on errSecInteractionNotAllowed the app defers its background work until
/// protected data is available (not a sign-out), and writes its own items `afterFirstUnlock`.
struct LockedDeviceHazard {
    let store: any ItemStore
    let variant: HazardVariant
    let device: any DeviceControl
    static let ownAccount = "imap.contoso.com"
    static let ownService = "com.contoso.mail.server-credential"

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group(MicrosoftApps.sharingGroup)
        let deployable = variant == .deployable
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1")
        let ownGroup = mail.app.keychain.app.appIDGroup.rawValue
        defer {
            _ = try? device.perform(.unlock)
            suite.cleanUp([group, ownGroup])
        }
        var report = HazardReport(hazard: Hazard.lockedDevice.rawValue, variant: variant, store: store.name)
        report.groups = [group, ownGroup]
        try mail.cache.signIn(username: MicrosoftApps.user)
        let ownClass: Accessibility = deployable ? .afterFirstUnlock : .whenUnlocked
        try mail.app.keychain.add(NewItem(
            account: Self.ownAccount, service: Self.ownService, group: ownGroup, data: Data("server-credential".utf8), accessibility: ownClass))
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user): MSAL writes its tokens afterFirstUnlockThisDeviceOnly; Mail adds its own server credential \(ownClass.rawValue)")

        // Case 1: a background launch after a reboot, before the first unlock.
        _ = try device.perform(.reboot)
        report.step("case 1: the phone reboots; the user has not unlocked it yet")
        suite.clock.advance(by: 3600)
        var failedBeforeFirstUnlock = 0
        var deferred = 0
        if let status = try refresh(mail.cache) {
            report.step("a silent push launches \(MicrosoftApps.mail) in the background; its refresh: \(status.name) (\(status.rawValue))")
            if deployable {
                deferred += 1
                report.step("\(MicrosoftApps.mail) takes errSecInteractionNotAllowed for 'not yet', not for 'signed out': it defers the refresh until protected data becomes available")
            } else {
                failedBeforeFirstUnlock += 1
                report.step("\(MicrosoftApps.mail) gives up: the background work is lost (an app that takes the error for a sign-out asks the user to sign in again)")
            }
        } else {
            report.step("a silent push launches \(MicrosoftApps.mail) in the background; its refresh: ok")
        }
        _ = try device.perform(.unlock)
        report.step("the user unlocks the phone for the first time since the reboot")
        if deferred > 0 {
            let status = try refresh(mail.cache)
            report.step("\(MicrosoftApps.mail)'s deferred refresh: \(status.map { "\($0.name) (\($0.rawValue))" } ?? "ok")")
            if status != nil { failedBeforeFirstUnlock += 1 }
        }

        // Case 2: locked again, after the first unlock.
        // Unlocked since boot, so locking leaves afterFirstUnlock items in reach.
        _ = try device.perform(.lock)
        report.step("case 2: the user locks the phone (it was unlocked since boot)")
        suite.clock.advance(by: 3600)
        let lockedRefresh = try refresh(mail.cache)
        report.step("\(MicrosoftApps.mail) background refresh while locked: \(lockedRefresh.map { "\($0.name) (\($0.rawValue))" } ?? "ok: MSAL's class is readable after the first unlock")")
        var failedOwnReads = 0
        do {
            _ = try mail.app.keychain.first(KeychainQuery(group: ownGroup, account: Self.ownAccount, service: Self.ownService))
            report.step("\(MicrosoftApps.mail) reads its own server credential (\(ownClass.rawValue)) while locked: ok")
        } catch {
            guard error.status == .interactionNotAllowed else { throw error }
            failedOwnReads += 1
            report.step("\(MicrosoftApps.mail) reads its own server credential (\(ownClass.rawValue)) while locked: \(error.status.name) (\(error.status.rawValue)); its background mail fetch fails")
        }
        _ = try device.perform(.unlock)

        report.record("background launches before the first unlock", 1)
        report.record("failed before the first unlock", failedBeforeFirstUnlock)
        report.record("deferred until the first unlock", deferred)
        report.record("refreshes while locked after the first unlock failed", lockedRefresh == nil ? 0 : 1)
        report.record("own whenUnlocked reads while locked failed", failedOwnReads)
        report.emulator("nothing beyond the device's view: the lock state and each item's class (kSecAttrAccessible, returned by SecItemCopyMatching) are visible on a device too")
        let failed = failedBeforeFirstUnlock + failedOwnReads
        report.verdict = failed == 0
            ? "no background work was lost: the refresh before the first unlock waited for it, and Mail's own items are afterFirstUnlock"
            : "\(failedBeforeFirstUnlock) background launch before the first unlock failed with errSecInteractionNotAllowed (MSAL's class), and \(failedOwnReads) read of Mail's own whenUnlocked item failed while locked after the first unlock"
        if deployable {
            report.limits = [
                "nothing reads MSAL's tokens between a reboot and the first unlock: background work in that window can only wait",
                "afterFirstUnlock items are readable by anything on the device that runs after the first unlock: less protection at rest while the phone is locked",
            ]
        }
        return report
    }

    /// A forced background refresh: nil when it worked, the status when the lock stopped it.
    private func refresh(_ cache: TokenCache) throws -> KeychainStatus? {
        do {
            _ = try cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes, forceRefresh: true)
            return nil
        } catch {
            // One plain catch: `catch where` here crashes the Swift 6.3 compiler.
            guard error.status == .interactionNotAllowed else { throw error }
            return error.status
        }
    }
}
