/// What a `device:` step does to the device around the keychain: its lock, or the Secret
/// Service daemon under it, so faults are scripted rather than done by hand.
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

/// The device a scenario's `device:` steps act on. The CLI's is the state directory's device
/// and private keyring; without one, a scenario with device steps is refused before it starts.
public protocol ScenarioDevice: Sendable {
    /// Why `action` cannot be done on this device, or nil: asked for every device step before
    /// the scenario starts.
    func refusal(of action: DeviceAction) -> String?
    /// Does `action`; returns what it did, for the timeline (`locked the device`).
    func perform(_ action: DeviceAction) throws -> String
}
