import Foundation
import Synchronization

/// A child process spoken to in typed messages, one JSON object a line: each `Request` goes to
/// its standard input, each `Response` line of its standard output is decoded and handed to a
/// callback as it arrives (on a reader thread of its own). Its standard error goes to a
/// temporary file, for the message when it fails. The child serves the other end with
/// ``LineChannelServer``.
///
/// Simulated apps run as these (load workers, scenario apps), so that contention for the keyring
/// is between real processes.
public final class LineChannel<Request: Encodable & Sendable, Response: Decodable & Sendable>: Sendable {
    private let process: Process
    private let input: FileHandle
    private let exited = DispatchSemaphore(value: 0)
    private let errorFile: URL
    private let pending = Mutex(Data())
    /// Whole lines only: requests from several threads never interleave.
    private let writing = Mutex(())

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - onMessage: called with each response, in order; lines that are not a `Response` are skipped.
    ///   - onClose: called once when standard output ends (the process exited or closed it).
    /// - Throws: what `Process.run()` throws when the executable cannot start.
    public init(
        spawning executable: URL,
        arguments: [String],
        onMessage: @escaping @Sendable (Response) -> Void,
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
                for line in self.lines(appending: chunk) {
                    if let message = LineCoding.decode(Response.self, from: line) { onMessage(message) }
                }
            }
            onClose()
        }.start()
    }

    /// Splits what has arrived into whole lines, keeping a partial last line for later.
    private func lines(appending chunk: Data) -> [Data] {
        pending.withLock { buffer in
            buffer.append(chunk)
            var lines: [Data] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(Data(buffer[buffer.startIndex..<newline]))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
            return lines
        }
    }

    /// Writes `request` as one line to the process's standard input. A process that has gone
    /// away is noticed through `onClose`, not here.
    public func send(_ request: Request) {
        guard let line = LineCoding.line(request) else { return }
        writing.withLock { _ in try? input.write(contentsOf: line) }
    }

    /// Closes the process's standard input: a server reading it sees its end.
    public func closeInput() {
        writing.withLock { _ in try? input.close() }
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

/// The child's end of a ``LineChannel``: requests read from standard input, responses written
/// to standard output, one JSON object a line. Any thread may send; each line goes out whole.
public final class LineChannelServer<Request: Decodable & Sendable, Response: Encodable & Sendable>: Sendable {
    private let writing = Mutex(())

    /// The server on this process's standard streams.
    public init() {}

    /// The next request, waiting for it; lines that are not a `Request` are skipped. Nil when
    /// standard input has ended (the parent closed it or went away).
    public func receive() -> Request? {
        while let line = readLine() {
            if let request = LineCoding.decode(Request.self, from: Data(line.utf8)) { return request }
        }
        return nil
    }

    /// Writes `response` as one line to standard output.
    public func send(_ response: Response) {
        guard let line = LineCoding.line(response) else { return }
        writing.withLock { _ in FileHandle.standardOutput.write(line) }
    }
}

/// The one encoding of a line of a ``LineChannel``, on both ends: JSON, dates as seconds since 1970.
enum LineCoding {
    /// `message` as JSON and a newline; nil only for a value JSON cannot hold (a NaN).
    static func line(_ message: some Encodable) -> Data? {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        guard var data = try? encoder.encode(message) else { return nil }
        data.append(UInt8(ascii: "\n"))
        return data
    }

    static func decode<Message: Decodable>(_ type: Message.Type, from line: Data) -> Message? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(type, from: line)
    }
}
