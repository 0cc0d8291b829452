import Foundation
import Synchronization

/// A child process spoken to in lines: lines written to its standard input, each line of its
/// standard output handed to a callback as it arrives (on a reader thread of its own). Its
/// standard error goes to a temporary file, for the message when it fails.
///
/// Simulated apps run as these, so that contention for the keyring is between real processes.
public final class LineProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let exited = DispatchSemaphore(value: 0)
    private let errorFile: URL
    private let pending = Mutex(Data())

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - onLine: called with each line of standard output, without its newline, in order.
    ///   - onClose: called once when standard output ends (the process exited or closed it).
    public init(
        executable: URL,
        arguments: [String],
        onLine: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable () -> Void = {}
    ) throws {
        // A write to a child that has exited must fail, not kill this process.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("sk-child-err-\(UUID().uuidString.prefix(8))")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        self.process = process
        input = stdin.fileHandleForWriting
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let reader = stdout.fileHandleForReading
        // A thread, not a task: the read blocks.
        Thread { [self] in
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                for line in self.lines(appending: chunk) { onLine(line) }
            }
            onClose()
        }.start()
    }

    /// Splits what has arrived into whole lines, keeping a partial last line for later.
    private func lines(appending chunk: Data) -> [String] {
        pending.withLock { buffer in
            buffer.append(chunk)
            var lines: [String] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
            return lines
        }
    }

    /// Writes `line` and a newline to the process's standard input. A process that has gone
    /// away is noticed through `onClose`, not here.
    public func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the process's standard input: a worker reading it sees its end.
    public func closeInput() {
        try? input.close()
    }

    /// True once the process has exited; waits at most `milliseconds`.
    public func waitForExit(milliseconds: Int) -> Bool {
        guard exited.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return false }
        exited.signal()
        return true
    }

    /// The exit status, or -1 while it runs.
    public var exitStatus: Int32 { process.isRunning ? -1 : process.terminationStatus }

    /// What the process wrote to standard error, trimmed.
    public var errorOutput: String {
        let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the process if it still runs and removes the standard-error file.
    public func terminate() {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errorFile)
    }
}
