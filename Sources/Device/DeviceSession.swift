import Foundation
import Logging
import Mitigations
import SharedKeychain

/// The device's keychain as opened for one command, SecItem context or worker: the store (with
/// the device's lock state and authentication answer) and the groups' mitigation policy, and
/// through them every app's keychain (``keychains``).
public struct DeviceSession: Sendable {
    public let device: Device
    /// The one factory of an app's keychain on this store under this policy.
    public let keychains: AppKeychains

    /// The device's store, as opened.
    public var store: any ItemStore { keychains.store }
    /// The groups' mitigations; `.none` is Apple's behaviour.
    public var policy: MitigationPolicy { keychains.policy }

    public init(device: Device, keychains: AppKeychains) {
        self.device = device
        self.keychains = keychains
    }

    /// `app`'s keychain (``AppKeychains/keychain(for:now:)``).
    public func keychain(for app: ResolvedApp, now: @escaping @Sendable () -> Date = { Date() }) -> Keychain {
        keychains.keychain(for: app, now: now)
    }
}

extension Device {
    /// The file a device's mitigation policy is kept in when none is named.
    public static let policyFileName = "policy.json"

    /// The groups' mitigation policy: `file` when given, else `policy.json` in the state
    /// directory when it exists, else none (Apple's behaviour).
    public func mitigationPolicy(file: URL? = nil) throws(DeviceError) -> MitigationPolicy {
        let url = file ?? stateDirectory.appendingPathComponent(Self.policyFileName)
        if file == nil, !FileManager.default.fileExists(atPath: url.path) { return .none }
        do { return try MitigationPolicy.load(from: url) } catch { throw .policy(error) }
    }

    /// Opens the device's keychain in `keyring` (``openStore(_:timeout:logger:)``) under the
    /// groups' policy (``mitigationPolicy(file:)``, read first, so a bad policy file is named
    /// before any keyring starts), with the device's fault plan (``faultPlan``) for every app
    /// keychain made on it.
    ///
    /// - Throws: ``DeviceError`` for the policy or the device's files; the store's errors as
    ///   ``openStore(_:timeout:logger:)`` throws them.
    public func session(keyring: KeyringKind, timeout: Double = 5, logger: Logger, policyFile: URL? = nil) throws -> DeviceSession {
        let policy = try mitigationPolicy(file: policyFile)
        let store = try openStore(keyring, timeout: timeout, logger: logger)
        return DeviceSession(device: self, keychains: AppKeychains(store: store, policy: policy, faults: faultPlan))
    }
}
