import ArgumentParser
import Device
import Dispatch
import Foundation
import SharedKeychain
import Synchronization
import TokenCache

struct DeviceLaunchCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Launch an installed app and have it read its accounts (MSAL's allAccounts), as at its start; --prewarm launches it as iOS does ahead of use, also before the first unlock.",
        discussion: """
            iOS 15 and later prewarm apps and wake them in the background, also between a \
            reboot and the first unlock. In that window MSAL's items \
            (afterFirstUnlockThisDeviceOnly) and whenUnlocked items fail with \
            errSecInteractionNotAllowed (-25308); an app that takes this for 'signed out' and \
            deletes its tokens or prompts loses the user's sign-in at the first unlock (hazard \
            prewarm-logout). The launch prints whether protected data is available, then what \
            the read gave; exit status 0 whatever the read gave: the report is the result.

            --wait-for-protected-data is the fix: the app checks isProtectedDataAvailable and, \
            when it is false, waits for protectedDataDidBecomeAvailable (posted by `device \
            unlock` in any process) before reading. It then writes one line to standard error, \
            `com.contoso.mail waits for protectedDataDidBecomeAvailable`, which scripts wait for \
            before unlocking. Without --prewarm the user opens the app, which needs an unlocked \
            device.
            """
    )

    @Argument(help: ArgumentHelp("The installed app's bundle ID.", valueName: "bundle-id"))
    var bundleID: String

    @Flag(help: "Launch as iOS prewarms an app: with the device locked, and before the first unlock since boot if it was rebooted.")
    var prewarm = false

    @Flag(name: .customLong("wait-for-protected-data"), help: "Check isProtectedDataAvailable and, when false, wait for protectedDataDidBecomeAvailable before reading (the deployable fix).")
    var waitForProtectedData = false

    @OptionGroup var tokens: TokenOptions

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let device = global.device
        guard try device.app(bundleID) != nil else { throw DeviceError.notInstalled(bundleID, installed: try device.apps().map(\.bundleID)) }
        let state = try device.lockState()
        guard prewarm || !state.locked else {
            throw UsageFailure(message: "the user cannot open \(bundleID) on a locked device: unlock it first (`device unlock`), or launch it as iOS does ahead of use with --prewarm")
        }
        var waited = false
        if waitForProtectedData, !state.isProtectedDataAvailable {
            if !global.json { Output.standardError.write("\(bundleID) waits for protectedDataDidBecomeAvailable; `device unlock` posts it\n") }
            try Self.waitForProtectedData(device)
            waited = true
        }
        let cache = try tokens.tokenCache(global, app: AppOptions.parse(["--app", bundleID]))
        let read: Result<[CachedAccount], TokenCacheError>
        do throws(TokenCacheError) { read = .success(try cache.accounts()) } catch { read = .failure(error) }
        let launch = LaunchJSON(bundleID: bundleID, prewarmed: prewarm, state: state, waited: waited, read: read)
        if global.json {
            Output.printJSON(launch)
        } else {
            Output.standardOutput.write(launch.text)
        }
    }

    /// Blocks until the device posts protectedDataDidBecomeAvailable (or protected data is
    /// available already).
    private static func waitForProtectedData(_ device: Device) throws {
        let wait = WaitOutcome()
        Task {
            do { try await device.protectedDataDidBecomeAvailable() } catch { wait.fail(error) }
            wait.finished.signal()
        }
        wait.finished.wait()
        if let failure = wait.failure { throw failure }
    }
}

/// How a wait run in a task ended, for the command's thread blocked on ``finished``.
private final class WaitOutcome: Sendable {
    let finished = DispatchSemaphore(value: 0)
    private let error = Mutex<(any Error)?>(nil)

    func fail(_ failure: any Error) { error.withLock { $0 = failure } }
    var failure: (any Error)? { error.withLock { $0 } }
}

/// What `device launch` saw, as `--json` prints it.
private struct LaunchJSON: Encodable {
    let app: String
    let prewarmed: Bool
    let beforeFirstUnlock: Bool
    let protectedDataAvailable: Bool
    let waitedForProtectedData: Bool
    /// The usernames read, or nil when the read failed.
    let accounts: [String]?
    let status: Int32?
    let statusName: String?
    let error: String?

    init(bundleID: String, prewarmed: Bool, state: DeviceLockState, waited: Bool, read: Result<[CachedAccount], TokenCacheError>) {
        app = bundleID
        self.prewarmed = prewarmed
        beforeFirstUnlock = state.isBeforeFirstUnlock
        protectedDataAvailable = state.isProtectedDataAvailable
        waitedForProtectedData = waited
        switch read {
        case .success(let found):
            accounts = found.map(\.username)
            status = nil
            statusName = nil
            error = nil
        case .failure(let failure):
            accounts = nil
            status = failure.status.rawValue
            statusName = failure.status.name
            error = failure.description
        }
    }

    private enum CodingKeys: String, CodingKey {
        case app, prewarmed, beforeFirstUnlock, protectedDataAvailable, waitedForProtectedData, accounts, status, statusName, error
    }

    /// Nulls are written, never left out: a script reads every key.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(prewarmed, forKey: .prewarmed)
        try container.encode(beforeFirstUnlock, forKey: .beforeFirstUnlock)
        try container.encode(protectedDataAvailable, forKey: .protectedDataAvailable)
        try container.encode(waitedForProtectedData, forKey: .waitedForProtectedData)
        try container.encode(accounts, forKey: .accounts)
        try container.encode(status, forKey: .status)
        try container.encode(statusName, forKey: .statusName)
        try container.encode(error, forKey: .error)
    }

    /// The launch for people, one fact a line.
    var text: String {
        let how = prewarmed ? "prewarmed by iOS" : "opened by the user"
        let when = beforeFirstUnlock ? ", before the first unlock since boot" : ""
        var lines = ["launched \(app), \(how)\(when)"]
        lines.append("protected data: \(protectedDataAvailable ? "available" : "unavailable") (isProtectedDataAvailable \(protectedDataAvailable))")
        let reader = waitedForProtectedData ? "after protectedDataDidBecomeAvailable, \(app)" : app
        if let accounts {
            lines.append("\(reader) reads its accounts (MSAL allAccounts): \(accounts.count.counted("account"))\(accounts.isEmpty ? "" : ": " + accounts.map { DisplayText($0).description }.joined(separator: ", "))")
        } else if let status, let statusName {
            lines.append("\(reader) reads its accounts (MSAL allAccounts): \(statusName) (\(status))")
            if status == KeychainStatus.interactionNotAllowed.rawValue {
                lines.append("not 'signed out': an app that deletes its tokens or prompts now signs the user out at the first unlock (hazard prewarm-logout); wait for protectedDataDidBecomeAvailable (--wait-for-protected-data)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
