import Foundation

/// Another process holding a `flock` on a file and stopped (SIGSTOP), as a hung or stopped app
/// holds a group's lock: `flock(1)` without a fork, so the process holding the lock is the
/// `sleep` it runs (stopped once it runs it, so its name is `sleep`). ``end()`` kills it (the
/// lock goes with it).
public final class StoppedLockHolder {
    public let process = Process()
    public var pid: Int32 { process.processIdentifier }

    /// Starts the holder on `path`, waits until it holds the lock, and stops it.
    public init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["--no-fork", path, "sleep", "600"]
        try process.run()
        let probe = open(path, O_RDWR)
        guard probe >= 0 else {
            end()
            throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { close(probe) }
        // Waits for the events (flock(1) holding the lock, then running `sleep`), polling.
        while flock(probe, LOCK_EX | LOCK_NB) == 0 {
            flock(probe, LOCK_UN)
            sched_yield()
        }
        while (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) != "sleep\n", process.isRunning {
            sched_yield()
        }
        kill(pid, SIGSTOP)
    }

    /// Kills the holder and waits for it; the lock is free again.
    public func end() {
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
        process.waitUntilExit()
    }

    deinit { end() }
}
