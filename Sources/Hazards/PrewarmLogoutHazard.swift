import Foundation
import Mitigations
import SharedKeychain
import Simulation
import Synchronization
import TokenCache

/// `prewarm-logout`: iOS 15+ prewarms apps (launches them ahead of use) and wakes them in the
/// background, also between a reboot and the first unlock. MSAL's items are
/// `afterFirstUnlockThisDeviceOnly` (IdentityCore `MSIDKeychainTokenCache.m`), so a read in that
/// window fails with errSecInteractionNotAllowed (-25308). The naive app takes the failure for
/// "no signed-in user": it signs out (its delete fails too before the first unlock) and keeps
/// "signed out" in memory; the user's first unlock brings that same process to the screen, its
/// sign-in screen clears the "leftover" tokens, which now works, and asks the user to sign in
/// again (firebase-ios-sdk #9622, Intune App SDK #478).
///
/// Deployable: before reading, check `isProtectedDataAvailable`; when false, observe
/// `protectedDataDidBecomeAvailable` and read then. The sign-in survives the first unlock.
struct PrewarmLogoutHazard {
    let store: any ItemStore
    let variant: HazardVariant
    let device: any DeviceControl

    /// What the launched app saw, filled in as it runs (its observer runs at the unlock).
    private struct Launch {
        var failedReads = 0
        var deferredReads = 0
        var signedOut = false
        var lines: [String] = []
    }

    /// The launch's record, shared with the observer the app leaves behind.
    private final class LaunchRecord: Sendable {
        private let state = Mutex(Launch())
        func withLock<T: Sendable>(_ body: (inout Launch) -> T) -> T { state.withLock { body(&$0) } }
    }

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group(MicrosoftApps.sharingGroup)
        let center = ProtectedDataCenter(device: device)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1")
        defer {
            _ = try? device.perform(.unlock)
            suite.cleanUp([group])
        }
        var report = HazardReport(hazard: Hazard.prewarmLogout.rawValue, variant: variant, store: store.name)
        report.groups = [group]
        // The user signs in on an unlocked phone, even when the run starts after a reboot.
        _ = try center.perform(.unlock)
        try mail.cache.signIn(username: MicrosoftApps.user)
        let signedIn = try suite.items(in: group)
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user): MSAL writes \(signedIn.count) items afterFirstUnlockThisDeviceOnly")

        try center.perform(.reboot)
        report.step("the phone reboots; the user has not unlocked it yet")
        let available = try center.isProtectedDataAvailable()
        report.step("iOS prewarms \(MicrosoftApps.mail) before the first unlock: isProtectedDataAvailable is \(available)")

        let launch = LaunchRecord()
        let cache = mail.cache
        if variant == .deployable, !available {
            launch.withLock { $0.deferredReads += 1 }
            report.step("\(MicrosoftApps.mail) checks isProtectedDataAvailable before reading its tokens: false, so it observes protectedDataDidBecomeAvailable and reads nothing yet")
            center.observeOnce(.didBecomeAvailable) { notification in
                let status = try Self.readAccount(cache)
                launch.withLock {
                    $0.lines.append("\(notification.event): \(MicrosoftApps.mail) reads its account now: \(status.map { "\($0.name) (\($0.rawValue))" } ?? "\(MicrosoftApps.user), signed in")")
                }
            }
        } else if let status = try Self.readAccount(cache) {
            launch.withLock { $0.failedReads += 1; $0.signedOut = true }
            report.step("\(MicrosoftApps.mail) reads its account at launch: \(status.name) (\(status.rawValue))")
            let signOut = Self.status { () throws(TokenCacheError) in _ = try cache.remove(account: MicrosoftApps.user) }
            report.step("\(MicrosoftApps.mail) takes the error for 'no signed-in user' and signs out: removeAccount \(signOut.map { "fails too, \($0.name) (\($0.rawValue)), nothing can be deleted before the first unlock" } ?? "deletes its tokens"); it keeps 'signed out' in memory")
        } else {
            report.step("\(MicrosoftApps.mail) reads its account at launch: \(MicrosoftApps.user), signed in")
        }

        let (_, posted) = try center.perform(.unlock)
        report.step("the user unlocks the phone for the first time since the reboot\(posted.map { "; the device posts \($0.event)" } ?? "")")
        let before = try suite.items(in: group)
        var prompts = 0
        var deleted = 0
        var lines: [String] = []
        let signedOut = launch.withLock { launch in
            lines = launch.lines
            return launch.signedOut
        }
        lines.forEach { report.step($0) }
        if signedOut {
            // The prewarmed process is the one the user opens, with what it concluded at launch.
            deleted = try cache.remove(account: MicrosoftApps.user)
            prompts += 1
            report.step("the user opens \(MicrosoftApps.mail): the prewarmed process is still 'signed out'; its sign-in screen clears the leftover tokens (removeAccount: \(deleted) deleted) and asks \(MicrosoftApps.user) to sign in again")
        }
        let silent = Self.status { () throws(TokenCacheError) in _ = try cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes) }
        report.step("\(MicrosoftApps.mail) asks for a token silently after the first unlock: \(silent.map { "\($0.name) (\($0.rawValue)): the user must sign in again" } ?? "ok, still signed in")")
        let after = try suite.items(in: group)

        let counts = launch.withLock { $0 }
        report.record("prewarmed launches before the first unlock", 1)
        report.record("reads failed with errSecInteractionNotAllowed at launch", counts.failedReads)
        report.record("reads deferred until protectedDataDidBecomeAvailable", counts.deferredReads)
        report.record("tokens deleted after the first unlock", deleted)
        report.record("sign-in prompts", prompts)
        report.record("signed in after the first unlock", silent == nil ? 1 : 0)
        report.losses = AppLoss.losses(before: before, after: after, causedBy: MicrosoftApps.mail)
        report.emulator("reads refused with -25308 before the first unlock, by the app that asked: \(counts.failedReads == 0 ? "none" : "\(MicrosoftApps.mail) \(counts.failedReads)"); a device's console shows the status, not that the app then took the user for signed out")
        report.emulator(report.losses.isEmpty
            ? "no item was deleted"
            : "\(MicrosoftApps.mail) deleted \(before.count - after.count) items after the first unlock, items it added itself at sign-in; a device records no deleter")
        report.verdict = silent == nil
            ? "the sign-in survived the first unlock: \(MicrosoftApps.mail) read nothing until protectedDataDidBecomeAvailable"
            : "\(MicrosoftApps.user) was signed out of \(MicrosoftApps.mail) by a launch before the first unlock: one -25308 read taken for 'signed out', \(deleted) tokens deleted after the unlock, \(prompts) sign-in prompt"
        if variant == .deployable {
            report.limits = [
                "a launch before the first unlock does no token work at all until the user unlocks: background refreshes in that window wait",
                "every read site must make the check, or route through one that does: one unguarded read that treats -25308 as 'signed out' brings the hazard back",
            ]
        }
        return report
    }

    /// Reads the app's account as a launch does (a silent token): nil when signed in, the
    /// status when the device's lock stopped it; any other failure is the run's.
    private static func readAccount(_ cache: TokenCache) throws(TokenCacheError) -> KeychainStatus? {
        do {
            _ = try cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
            return nil
        } catch {
            guard error.status == .interactionNotAllowed else { throw error }
            return error.status
        }
    }

    /// Runs `body`: nil when it worked, its status when it failed.
    private static func status(_ body: () throws(TokenCacheError) -> Void) -> KeychainStatus? {
        do {
            try body()
            return nil
        } catch {
            return error.status
        }
    }
}
