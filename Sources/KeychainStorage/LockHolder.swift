/// The process holding an access group's lock, as far as the system tells (Linux's
/// `/proc/locks`): named in ``StorageError/lockTimedOut(group:lockFile:seconds:holder:)`` so a
/// person can act on it.
public struct LockHolder: Sendable, Equatable, CustomStringConvertible {
    /// What the holder is doing.
    public enum State: String, Sendable, Equatable {
        /// Running or asleep: busy, or hung.
        case running
        /// Stopped (SIGSTOP, a debugger, Ctrl-Z): it keeps the lock until continued or ended.
        case stopped
        /// Exiting (a zombie): the lock goes with it.
        case exiting
    }

    public var pid: Int32
    /// The process's command name (15 characters at most; control characters shown as `?`:
    /// any process may name itself).
    public var command: String
    public var state: State

    public init(pid: Int32, command: String, state: State) {
        self.pid = pid
        self.command = String(String.UnicodeScalarView(command.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        self.state = state
    }

    /// "process 123 (shared-keychain), which is stopped: ..." with what to do about it, in the
    /// front end's words when it has its own (``FrontEndWording``).
    public var description: String {
        FrontEndWording.words(for: self, neutral: neutralDescription)
    }

    /// The description in terms true for any caller of the library.
    public var neutralDescription: String {
        let named = "process \(pid) (\(command))"
        switch state {
        case .stopped:
            return "\(named), which is stopped: continue it (`kill -CONT \(pid)`) or end it (`kill \(pid)`), then retry"
        case .running:
            return "\(named), which is still running: it may be hung or busy; retry, end it (`kill \(pid)`), or wait longer (a longer timeout)"
        case .exiting:
            return "\(named), which is exiting: retry"
        }
    }
}
