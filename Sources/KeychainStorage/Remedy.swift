/// What a person can do about a failure, named as data: a library message says it in terms
/// true for any caller, and a front end with its own commands says it in those
/// (``FrontEndWording``). Each case is worded to fit where the messages put it.
public enum Remedy: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A locked keyring collection: unlock it (a private keyring is unlocked when it starts).
    case unlockKeyring
    /// No Secret Service on the bus: start one.
    case startSecretService
    /// No session bus: start a private keyring (and use its bus address).
    case startPrivateKeyring
    /// The bus connection closed for good in this process: start the keyring, then restart.
    case restartKeyringAndProcess
    /// The private keyring's bus does not answer: stop the keyring and start it again.
    case restartKeyring
    /// The private keyring's daemon does not answer (stopped or hung): stop the keyring, start it.
    case restartHungKeyring
    /// A group's lock file is not a regular file: remove it; a new one is made.
    case removeLockFile
    /// The device's lock state file is unreadable: write a fresh one by unlocking or locking.
    case setLockState
    /// The device's authentication answer is unreadable: write a fresh one.
    case setAuthenticationAnswer
    /// A snapshot was refused by the device's authentication answer: answer allow.
    case allowAuthentication
    /// An app is not installed on the device: install it from its suite.
    case installFromSuite
    /// A SecItem caller names an app the device does not have: install it.
    case installApp
    /// An installed app's identity was declared again, differently: declare none, or reinstall.
    case dropDeclaredIdentity
    /// The broker is not installed on the device.
    case installBroker
    /// The example suite's files exist: overwrite them deliberately.
    case overwriteSuite
    /// A freshly written example suite: what wrote it, and how to check it.
    case checkWrittenSuite
    /// A fault the device's fault plan injected, or a damaged plan: clear the plan.
    case clearFaultPlan

    /// The front end's words, or the library's neutral ones.
    public var description: String {
        FrontEndWording.words(for: self, neutral: neutral)
    }

    /// The words true for any caller of the libraries.
    public var neutral: String {
        switch self {
        case .unlockKeyring: "unlock it (a private keyring is unlocked when it starts)"
        case .startSecretService: "start one (a private keyring)"
        case .startPrivateKeyring: "start a private keyring"
        case .restartKeyringAndProcess: "start the keyring again, then restart this process"
        case .restartKeyring: "stop the private keyring, then start it again"
        case .restartHungKeyring: "stop the private keyring, then start it"
        case .removeLockFile: "remove it (the store creates a new one; no item is lost)"
        case .setLockState: "unlock (or lock) the device"
        case .setAuthenticationAnswer: "set the device's authentication answer"
        case .allowAuthentication: "(the device answering allow lets it through)"
        case .installFromSuite: "Install it from its suite"
        case .installApp: "install it on the device"
        case .dropDeclaredIdentity: "Declare no team or entitlements for it, or reinstall the app"
        case .installBroker: "install it on the device"
        case .overwriteSuite: "allow overwriting to replace them"
        case .checkWrittenSuite: "Written by ExampleSuite; check it with SuiteChecker."
        case .clearFaultPlan: "clear the device's fault plan"
        }
    }
}
