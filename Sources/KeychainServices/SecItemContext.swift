import Device
import Foundation
import Logging
import SharedKeychain
import Synchronization

/// Who SecItem calls act as and where the items live: an app identity and a store.
///
/// iOS code never says which app it is; the system knows. Here the context comes, in order,
/// from ``with(_:_:)`` (this task only), from ``use(_:)`` (the whole process), or from the
/// environment (``fromEnvironment(_:)``), read on the first call and kept:
///
/// | variable | meaning |
/// |---|---|
/// | `SHARED_KEYCHAIN_APP` | the app's bundle ID (required) |
/// | `SHARED_KEYCHAIN_STATE_DIR` | the device: its installed apps, lock state and private keyring (default as the CLI's) |
/// | `SHARED_KEYCHAIN_TEAM` | for an app not installed there: its team ID, making it an ad-hoc app; for an installed app, with the entitlements, it must declare the installed identity |
/// | `SHARED_KEYCHAIN_ENTITLEMENTS` | the ad-hoc app's entitlements plist (without it: only its app ID group) |
///
/// The calls go through the group's mitigation policy, `policy.json` in the state directory
/// when it exists, as commands do.
/// | `SHARED_KEYCHAIN_KEYRING` | `private` (default; started on first use), `user` or `memory` |
///
/// The device's fault plan (`<state>/device/faults.json`, `shared-keychain device fault add`)
/// fails the calls it names with the status it names, as for commands; no variable is needed.
///
/// A missing or bad setting makes every SecItem call return `errSecNotAvailable` (-25291) or
/// `errSecMissingEntitlement` (-34018) and log one line saying what to set; it never crashes.
public struct SecItemContext: Sendable {
    /// The app's view of the keychain the calls go to.
    public let keychain: Keychain

    /// A context acting as `app` on `store` as it is, with no mitigation policy; an item whose
    /// access control asks the user is asked of the store's device (`Device.openStore` gives
    /// its store the device's answer). ``fromEnvironment(_:)`` uses the device's factory.
    public init(app: AppIdentity, store: any ItemStore) {
        keychain = Keychain(app: app, store: store)
    }

    /// A context acting through `keychain`.
    public init(_ keychain: Keychain) {
        self.keychain = keychain
    }

    // MARK: Choosing the context

    @TaskLocal private static var taskContext: SecItemContext?
    private static let processContext = Mutex<SecItemContext?>(nil)
    private static let environmentContext = Mutex<SecItemContext?>(nil)
    private static let lastLogged = Mutex<String?>(nil)

    /// Makes every SecItem call of this process act through `context`; nil goes back to the
    /// environment.
    public static func use(_ context: SecItemContext?) {
        processContext.withLock { $0 = context }
    }

    /// Runs `body` with SecItem calls made from this task (and its child tasks) acting through
    /// `context`: for tests that act as several apps at once.
    public static func with<T>(_ context: SecItemContext, _ body: () throws -> T) rethrows -> T {
        try $taskContext.withValue(context, operation: body)
    }

    /// Forgets the context read from the environment, so the next call reads it again.
    public static func resetEnvironment() {
        environmentContext.withLock { $0 = nil }
    }

    /// The context the next call acts through.
    static func resolve() -> Result<SecItemContext, SecItemConfigurationError> {
        if let context = taskContext ?? processContext.withLock({ $0 }) { return .success(context) }
        // Held while a private keyring starts, so concurrent first calls start it once.
        return environmentContext.withLock { cached -> Result<SecItemContext, SecItemConfigurationError> in
            if let cached { return .success(cached) }
            do throws(SecItemConfigurationError) {
                let context = try fromEnvironment()
                cached = context
                return .success(context)
            } catch {
                let message = error.description
                let isNew = lastLogged.withLock { last in
                    defer { last = message }
                    return last != message
                }
                if isNew { SecItemCall.logger.error("SecItem calls cannot run: \(message)") }
                return .failure(error)
            }
        }
    }

    /// The context the environment describes (see the table above): the app as the device
    /// resolves it (`Device.resolve`, the rules every command follows: an installed app
    /// cannot be re-declared with another team or other entitlements), and its keychain from
    /// the device's one factory (`DeviceSession.keychains`): the device's store, with its lock
    /// state and authentication answer, under the groups' mitigation policy (the state
    /// directory's `policy.json`, as for commands).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(SecItemConfigurationError)
        -> SecItemContext
    {
        guard let request = AppRequest(environment: environment) else { throw .noApp }
        let device = Device(stateDirectory: Device.defaultStateDirectory(environment: environment))
        let kindName = environment["SHARED_KEYCHAIN_KEYRING"].flatMap { $0.isEmpty ? nil : $0 } ?? KeyringKind.private.rawValue
        guard let kind = KeyringKind(rawValue: kindName) else { throw .badKeyring(kindName) }
        let app: ResolvedApp
        do throws(DeviceError) {
            app = try device.resolve(request)
        } catch {
            switch error {
            case .notInstalled: throw .notInstalled(bundleID: request.bundleID, stateDirectory: device.stateDirectory.path)
            case .identityMismatch(let bundleID, let installed, let declared):
                throw .identityMismatch(bundleID: bundleID, installed: installed, declared: declared)
            case .accessGroup, .entitlements: throw .badIdentity(error)
            default: throw .device(error)
            }
        }
        let session: DeviceSession
        do {
            session = try device.session(keyring: kind, logger: SecItemCall.logger)
        } catch let error as DeviceError {
            throw .device(error)
        } catch {
            throw .storeUnavailable(kind: kind.rawValue, reason: String(describing: error))
        }
        return SecItemContext(session.keychain(for: app))
    }
}

/// Why the environment describes no usable SecItem context. Each says what to set.
public enum SecItemConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case noApp
    case badKeyring(String)
    case notInstalled(bundleID: String, stateDirectory: String)
    /// The team or entitlements variables declare another identity than the installed app's.
    case identityMismatch(bundleID: String, installed: [String], declared: [String])
    /// The team or entitlements variables do not make a valid identity.
    case badIdentity(DeviceError)
    /// The device's files (its registry, lock, authentication answer or policy) are unusable.
    case device(DeviceError)
    case storeUnavailable(kind: String, reason: String)

    /// The status every SecItem call returns meanwhile.
    public var status: KeychainStatus {
        switch self {
        case .notInstalled, .identityMismatch: .missingEntitlement
        default: .notAvailable
        }
    }

    public var description: String {
        switch self {
        case .noApp:
            "SHARED_KEYCHAIN_APP is not set: set it to the app's bundle ID (and SHARED_KEYCHAIN_TEAM for an app not installed on the device), or call SecItemContext.use(_:)"
        case .badKeyring(let name):
            "SHARED_KEYCHAIN_KEYRING is '\(name)': use private, user or memory"
        case .notInstalled(let bundleID, let directory):
            "\(bundleID) is not installed on the device at \(directory): \(Remedy.installApp), or set SHARED_KEYCHAIN_TEAM (and SHARED_KEYCHAIN_ENTITLEMENTS) to run it as an ad-hoc app"
        case .identityMismatch(let bundleID, let installed, let declared):
            "\(bundleID) is installed with access groups \(installed.joined(separator: ", ")), but SHARED_KEYCHAIN_TEAM and SHARED_KEYCHAIN_ENTITLEMENTS declare \(declared.joined(separator: ", ")): an installed app's identity is fixed at install time; unset them, or fix them"
        case .badIdentity(let error):
            "the app described by SHARED_KEYCHAIN_TEAM and SHARED_KEYCHAIN_ENTITLEMENTS is not valid: \(error.message)"
        case .device(let error):
            "the device cannot be read: \(error.message)"
        case .storeUnavailable(let kind, let reason):
            "the \(kind) keyring cannot be opened: \(reason)"
        }
    }
}
