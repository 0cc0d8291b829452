import Device
import KeychainStorage
import LoadGeneration
import SharedKeychain
import SuiteManifest

/// The command line's words for what the libraries say in neutral terms: its flags and commands.
/// Installed once when the tool starts (``FrontEndWording``), so every message it prints says
/// them, a failure or a report step, in this process or a worker it started.
enum CommandLineWording {
    static func bootstrap() {
        FrontEndWording.bootstrap(words(for:))
    }

    /// The command line's wording of `value`, or nil where the library's is the command line's too.
    @Sendable static func words(for value: any Sendable) -> String? {
        switch value {
        case let remedy as Remedy: phrase(for: remedy)
        case let setting as LoadConfiguration.Setting: flag(of: setting)
        case let error as StorageError: message(for: error)
        case let holder as LockHolder where holder.state == .running:
            "process \(holder.pid) (\(holder.command)), which is still running: it may be hung or busy; retry, end it (`kill \(holder.pid)`), or wait longer with --timeout"
        case DeviceError.suiteFailsCheck(let manifest, let errors, let first):
            "\(manifest) fails `suite check` with \(errors.counted("error")) (first: \(first)); nothing was installed. Fix the manifest, or install it as signed with --allow-check-errors (a device installs what was signed; its keychain calls then fail as they did there)"
        case let failure as SuiteCheckFailure: failure.message(strictMode: "--strict")
        case let keyring as KeyringKind: "--keyring \(keyring.rawValue)"
        default: nil
        }
    }

    private static func phrase(for remedy: Remedy) -> String {
        switch remedy {
        case .unlockKeyring: "unlock it (for the private keyring: `shared-keychain keyring start`)"
        case .startSecretService: "start one with `shared-keychain keyring start`"
        case .startPrivateKeyring: "start a private keyring with `shared-keychain keyring start`"
        case .restartKeyringAndProcess: "run `shared-keychain keyring start`, then restart this process"
        case .restartKeyring: "run `shared-keychain keyring stop` then `shared-keychain keyring start`"
        case .restartHungKeyring: "`shared-keychain keyring stop` then `keyring start`"
        case .removeLockFile: "remove it (shared-keychain creates a new one; no item is lost)"
        case .setLockState: "run `shared-keychain device unlock` (or `device lock`)"
        case .setAuthenticationAnswer: "run `shared-keychain device authentication allow`"
        case .allowAuthentication: "(`device authentication allow` lets it through)"
        case .installFromSuite: "Install it with `shared-keychain device install --suite DIR`"
        case .installApp: "install it (`shared-keychain device install`)"
        case .dropDeclaredIdentity: "Drop --team/--entitlements, or reinstall the app"
        case .installBroker: "`shared-keychain device install-broker`"
        case .overwriteSuite: "use --force to replace them"
        case .checkWrittenSuite: "Written by `shared-keychain suite init`; check it with `shared-keychain suite check --suite <dir>`."
        case .clearFaultPlan: "run `shared-keychain device fault clear`"
        }
    }

    private static func flag(of setting: LoadConfiguration.Setting) -> String {
        switch setting {
        case .itemsPerApp: "--items"
        case .valueSize: "--value-size"
        case .allowExistingData: "--allow-existing-data"
        case .prefillAccounts: "--prefill-accounts"
        case .apps, .workload, .mix, .duration, .operations, .warmup, .team, .group, .rate: "--\(setting.rawValue)"
        }
    }

    private static func message(for error: StorageError) -> String? {
        switch error {
        case .deviceLocked(.untilFirstUnlock):
            "the device has not been unlocked since it booted: afterFirstUnlock items are out of reach until it is (`shared-keychain device unlock`)"
        case .deviceLocked:
            "the device is locked: whenUnlocked and whenPasscodeSet items are out of reach until it is unlocked (`shared-keychain device unlock`)"
        case .timedOut(let operation, let seconds):
            "the Secret Service did not answer '\(DisplayText(operation))' within \(seconds) s; is the daemon hung? (raise the limit with --timeout)"
        case .lockTimedOut(let group, let lockFile, let seconds, nil):
            "access group '\(DisplayText(group))' stayed locked for \(seconds) s: its lock file \(lockFile) is held by "
                + "a process the system does not name (see `cat /proc/locks`); retry, or wait longer with --timeout"
        default: nil
        }
    }
}
