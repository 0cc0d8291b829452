import Foundation

/// Questions about other processes, answered from /proc.
enum ProcessTable {
    /// Whether `pid` runs (not a zombie) and its command name starts with `name` (the kernel
    /// keeps 15 characters): a recycled pid of another program does not count.
    static func isRunning(_ pid: Int32, named name: String) -> Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
            return false
        }
        // "pid (comm) S ...": the command may hold spaces or parentheses, so split at the last ')'.
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return false }
        let command = String(stat[stat.index(after: open)..<close])
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        guard state != "Z", state != "X" else { return false }
        return command == String(name.prefix(15))
    }

    /// Sends SIGTERM, waits up to `seconds` for the process to go, then SIGKILL and waits again.
    /// Does nothing when `pid` is not `name` (any more).
    static func terminate(_ pid: Int32, named name: String, seconds: Double) {
        guard isRunning(pid, named: name) else { return }
        kill(pid, SIGTERM)
        if waitForExit(pid, named: name, seconds: seconds) { return }
        kill(pid, SIGKILL)
        _ = waitForExit(pid, named: name, seconds: 2)
    }

    /// Polls until the process is gone; false when it is still there at the deadline.
    static func waitForExit(_ pid: Int32, named name: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var pause: UInt32 = 1_000
        while isRunning(pid, named: name) {
            if Date() >= deadline { return false }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return true
    }
}
