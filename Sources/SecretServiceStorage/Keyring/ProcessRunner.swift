import CLibsecret
import CProcessExit
import Foundation

/// Runs a short-lived program that may fork a daemon, with a bounded wait.
///
/// Not Foundation's `Process`: it hands the child a socket to learn of its exit, a daemon the
/// child forks inherits that socket, and `Process` then never sees the exit. Here the child gets
/// exactly stdin, stdout and stderr, and is reaped with `waitpid`.
enum ProcessRunner {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: Data? = nil,
        timeout: Double
    ) throws(PrivateKeyringError) -> Result {
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let (pid, stdin, stdout, stderr) = try spawn(
            [executable.path] + arguments, environment: environment ?? ProcessInfo.processInfo.environment,
            command: command)
        defer {
            close(stdout)
            close(stderr)
        }
        // Small inputs fit the pipe buffer, so this never blocks on a child that does not read.
        if let input {
            _ = input.withUnsafeBytes { write(stdin, $0.baseAddress, $0.count) }
        }
        close(stdin)

        var output: [UInt8] = []
        var errors: [UInt8] = []
        for descriptor in [stdout, stderr] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt32 = 500
        var status: Int32 = 0
        while true {
            drain(stdout, into: &output)
            drain(stderr, into: &errors)
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            if Date() >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw .timedOut(what: "`\(command)` exiting", seconds: timeout)
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        drain(stdout, into: &output)
        drain(stderr, into: &errors)
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
        return Result(
            status: exitStatus,
            output: String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            errors: String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// GLib's spawn: it closes every descriptor but the three pipes in the child (libc's
    /// `closefrom` file action is not visible to Swift), and leaves reaping to us.
    private static func spawn(
        _ arguments: [String], environment: [String: String], command: String
    ) throws(PrivateKeyringError) -> (pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32) {
        var argv = arguments.map { g_strdup($0) } + [nil]
        var envp = environment.map { g_strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { g_free(pointer) }
            for pointer in envp { g_free(pointer) }
        }
        var pid: GPid = 0
        var stdin: Int32 = -1
        var stdout: Int32 = -1
        var stderr: Int32 = -1
        var error: UnsafeMutablePointer<GError>?
        let flags = GSpawnFlags(rawValue: G_SPAWN_DO_NOT_REAP_CHILD.rawValue | G_SPAWN_CLOEXEC_PIPES.rawValue)
        let started = g_spawn_async_with_pipes(
            nil, &argv, &envp, flags, resetSignals, nil, &pid, &stdin, &stdout, &stderr, &error)
        guard started != 0 else {
            let reason = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            throw .processFailed(command: command, status: -1, output: "cannot start it: \(reason)")
        }
        return (pid, stdin, stdout, stderr)
    }

    /// Runs in the child before exec. A daemon inherits the signal mask of the thread that
    /// spawned it (dispatch and test threads block most signals; then SIGTERM would not stop
    /// it) and any ignored signals: give it a clean slate. Only async-signal-safe calls.
    private static let resetSignals: GSpawnChildSetupFunc = { _ in
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        var byDefault = sigaction()  // a nil handler is SIG_DFL
        sigemptyset(&byDefault.sa_mask)
        // One call each: no array, since allocating after fork can deadlock.
        sigaction(SIGPIPE, &byDefault, nil)
        sigaction(SIGTERM, &byDefault, nil)
        sigaction(SIGINT, &byDefault, nil)
        sigaction(SIGHUP, &byDefault, nil)
        sigaction(SIGQUIT, &byDefault, nil)
        sigaction(SIGCHLD, &byDefault, nil)
    }

    /// Appends what a non-blocking pipe holds now (up to 1 MiB in all).
    private static func drain(_ descriptor: Int32, into bytes: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            bytes += buffer[0..<count]
        }
    }

    /// The first executable called `name` in PATH, /usr/bin or /bin.
    static func find(_ name: String, debianPackage: String) throws(PrivateKeyringError) -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin"]
        for directory in directories where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw .missingExecutable(name: name, debianPackage: debianPackage)
    }
}

/// Questions about other processes, answered from /proc.
enum ProcessTable {
    /// Whether `pid` runs (not a zombie) and its command name starts with `name` (the kernel
    /// keeps 15 characters): a recycled pid of another program does not count.
    static func isRunning(_ pid: Int32, named name: String) -> Bool {
        guard let status = status(of: pid), status.state != "Z", status.state != "X" else { return false }
        return status.command == String(name.prefix(15))
    }

    /// The command name and the state letter (`R`, `S`, `D`, `T` stopped, `t` traced, `Z`
    /// zombie, ...) of `pid`, from `/proc/<pid>/stat`; nil when there is no such process.
    static func status(of pid: Int32) -> (command: String, state: String)? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        // "pid (comm) S ...": the command may hold spaces or parentheses, so split at the last ')'.
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"), open < close,
            let state = stat[stat.index(after: close)...].split(separator: " ").first
        else { return nil }
        return (String(stat[stat.index(after: open)..<close]), String(state))
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

    /// Waits until the process is gone; false when it is still there at the deadline. The
    /// daemons are not our children (they daemonize), so `waitpid` cannot wait for them; a
    /// pidfd turns readable when the process exits. Polls `/proc` where there are no pidfds.
    static func waitForExit(_ pid: Int32, named name: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        let descriptor = sk_pidfd_open(pid)
        if descriptor >= 0 {
            defer { close(descriptor) }
            // Checked after the open: the pidfd is now of this very process, not of a reuse of its pid.
            guard isRunning(pid, named: name) else { return true }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while true {
                let milliseconds = Int32(min(max(deadline.timeIntervalSinceNow, 0), 86_400) * 1000)
                let ready = poll(&entry, 1, milliseconds)
                if ready > 0 { return true }
                if ready == 0 { return !isRunning(pid, named: name) }
                guard errno == EINTR else { break }
            }
        } else if errno == ESRCH {
            return true
        }
        var pause: UInt32 = 1_000
        while isRunning(pid, named: name) {
            if Date() >= deadline { return false }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return true
    }
}

extension ProcessTable {
    /// The processes of this user called `name` whose command line and environment (each a list
    /// of `NUL`-separated entries from /proc) satisfy `matches`.
    static func find(named name: String, where matches: (_ arguments: [String], _ environment: [String]) -> Bool) -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap(Int32.init).filter { pid in
            guard isRunning(pid, named: name) else { return false }
            return matches(entries(of: pid, "cmdline"), entries(of: pid, "environ"))
        }.sorted()
    }

    /// `/proc/<pid>/<file>` split at its `NUL`s; empty when it cannot be read (another user's).
    private static func entries(of pid: Int32, _ file: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(file)") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}
