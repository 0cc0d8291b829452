import Device
import Foundation
import Logging
import SharedKeychain

/// What a simulation does to the device around the keychain: its lock, or the Secret Service
/// daemon under it, so faults are scripted rather than done by hand. A scenario's `device:`
/// steps name them; the locked-device hazard locks, reboots and unlocks.
public enum DeviceAction: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `device lock`: whenUnlocked items out of reach.
    case lock
    /// `device unlock`.
    case unlock
    /// `device reboot`: locked, and not unlocked since boot.
    case reboot
    /// SIGKILL to the private keyring's daemon; the next call restarts it and reconnects.
    case killDaemon = "kill-daemon"
    /// SIGSTOP to the daemon: calls time out until `resume-daemon`.
    case stopDaemon = "stop-daemon"
    /// SIGCONT to a stopped daemon.
    case resumeDaemon = "resume-daemon"

    public var description: String { rawValue }
}

/// The device a simulation acts on. ``KeyringDevice`` is a state directory's device on its
/// keyring, as the `device` commands change it; tests keep a lock state in memory.
public protocol DeviceControl: Sendable {
    /// Why `action` cannot be done on this device, or nil: asked before a run starts, so a run
    /// that needs what the device cannot do is refused whole.
    func refusal(of action: DeviceAction) -> String?
    /// Does `action`; returns what it did, for the run's timeline (`the device is locked`).
    func perform(_ action: DeviceAction) throws -> String
    /// The lock state now: what an app's `isProtectedDataAvailable` reads
    /// (``ProtectedDataCenter``).
    func lockState() throws -> DeviceLockState
}

/// A state directory's device on the keyring its apps use: its lock as ``Device/lock(keyring:timeout:logger:)``,
/// ``Device/unlock()`` and ``Device/reboot(keyring:timeout:logger:)`` set it (the lock file and
/// the private keyring's shards), and signals to the private keyring's daemon.
public struct KeyringDevice: DeviceControl {
    public let device: Device
    public let keyring: KeyringKind
    public let timeout: Double
    public let logger: Logger

    public init(_ device: Device, keyring: KeyringKind, timeout: Double, logger: Logger) {
        self.device = device
        self.keyring = keyring
        self.timeout = timeout
        self.logger = logger
    }

    /// Puts the device back in `state`, as a run that locked it found it.
    public func setLock(_ state: DeviceLockState) throws {
        try device.setLock(state, keyring: keyring, timeout: timeout, logger: logger)
    }

    public func lockState() throws -> DeviceLockState {
        try device.lockState()
    }

    public func refusal(of action: DeviceAction) -> String? {
        switch action {
        case .lock, .unlock, .reboot: nil
        case .killDaemon, .stopDaemon, .resumeDaemon:
            keyring == .private ? nil : "device: \(action) needs the private keyring (this run uses \(FrontEndWording.words(for: keyring, neutral: "the \(keyring.rawValue) keyring")))"
        }
    }

    public func perform(_ action: DeviceAction) throws -> String {
        switch action {
        case .lock:
            try device.lock(keyring: keyring, timeout: timeout, logger: logger)
            return "the device is locked"
        case .unlock:
            try device.unlock()
            return "the device is unlocked"
        case .reboot:
            try device.reboot(keyring: keyring, timeout: timeout, logger: logger)
            return "the device rebooted: locked, not unlocked since boot"
        case .killDaemon, .stopDaemon, .resumeDaemon:
            let signal: KeyringDaemonSignal = action == .killDaemon ? .kill : action == .stopDaemon ? .stop : .resume
            let pid: Int32
            do throws(DeviceError) {
                pid = try device.signalKeyringDaemon(signal, logger: logger)
            } catch {
                throw DeviceActionFailure(action: action, reason: error)
            }
            switch signal {
            case .kill: return "killed the keyring daemon (pid \(pid)); the apps restart it and reconnect"
            case .stop: return "stopped the keyring daemon (pid \(pid)); calls time out until resume-daemon"
            case .resume: return "resumed the keyring daemon (pid \(pid))"
            }
        }
    }
}

/// A device action that could not be done: which, and the device's reason.
public struct DeviceActionFailure: StatusReporting, CustomStringConvertible {
    public let action: DeviceAction
    public let reason: DeviceError

    /// errSecParam: the run asked for something the device cannot do now.
    public var status: KeychainStatus { .param }

    public var message: String {
        switch reason {
        case .signalFailed(let pid, _, let why): "device: \(action): cannot signal the daemon (pid \(pid)): \(why)"
        default: "device: \(action): \(reason.description)"
        }
    }

    public var description: String { message }
}
