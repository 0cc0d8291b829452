import Foundation
import Synchronization

/// Simulated apps as separate OS processes, so contention for the keyring is real.
///
/// Each worker is the tool itself run with arguments from `arguments(app, resultFile)`; it
/// speaks ``WorkerProtocol`` on its standard streams. All workers start their runs together:
/// each says `ready` once its store is open, and the fleet answers `go` when all have.
public struct WorkerFleet: Sendable {
    public let executable: URL
    public let arguments: @Sendable (_ app: Int, _ resultFile: URL) -> [String]

    public init(executable: URL, arguments: @escaping @Sendable (_ app: Int, _ resultFile: URL) -> [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    func run(configuration: LoadConfiguration, progress: @Sendable (Int) -> Void) throws -> [WorkerResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-load-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let workers = try (0..<configuration.apps).map { app in
            try LaunchedWorker(app: app, executable: executable,
                               arguments: arguments(app, directory.appendingPathComponent("app\(app).json")))
        }
        defer { workers.forEach { $0.terminate() } }
        for worker in workers { try worker.waitUntilReady() }
        for worker in workers { worker.go() }
        while !workers.allSatisfy({ $0.waitForExit(milliseconds: 200) }) {
            progress(workers.reduce(0) { $0 + $1.progress })
        }
        progress(workers.reduce(0) { $0 + $1.progress })
        return try workers.map { worker in
            guard worker.exitStatus == 0 else {
                throw LoadError.workerFailed(app: worker.app, reason: "exited with status \(worker.exitStatus): \(worker.errorOutput)")
            }
            let data: Data
            do { data = try Data(contentsOf: directory.appendingPathComponent("app\(worker.app).json")) } catch {
                throw LoadError.workerFailed(app: worker.app, reason: "no result file: \(error.localizedDescription)")
            }
            do { return try JSONDecoder().decode(WorkerResult.self, from: data) } catch {
                throw LoadError.workerFailed(app: worker.app, reason: "unreadable result: \(error)")
            }
        }
    }
}

/// One worker process and what it has said so far.
private final class LaunchedWorker: Sendable {
    let app: Int
    private let process: Process
    private let input: FileHandle
    private let state = Mutex(State())
    private let exited = DispatchSemaphore(value: 0)
    private let readyOrGone = DispatchSemaphore(value: 0)
    private let errorFile: URL

    private struct State {
        var progress = 0
        var ready = false
        var buffer = Data()
    }

    init(app: Int, executable: URL, arguments: [String]) throws {
        self.app = app
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("sk-load-err-\(UUID().uuidString.prefix(8))")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        self.process = process
        input = stdin.fileHandleForWriting
        let exited = exited
        let readyOrGone = readyOrGone
        process.terminationHandler = { _ in
            exited.signal()
            readyOrGone.signal()
        }
        try process.run()
        let reader = stdout.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                self.consume(chunk)
            }
        }
        thread.start()
    }

    private func consume(_ chunk: Data) {
        let becameReady = state.withLock { state -> Bool in
            state.buffer.append(chunk)
            var becameReady = false
            while let newline = state.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.buffer[state.buffer.startIndex..<newline], as: UTF8.self)
                state.buffer.removeSubrange(state.buffer.startIndex...newline)
                switch WorkerProtocol.Message(line) {
                case .ready:
                    state.ready = true
                    becameReady = true
                case .progress(let count):
                    state.progress = count
                case nil:
                    break
                }
            }
            return becameReady
        }
        if becameReady { readyOrGone.signal() }
    }

    func waitUntilReady() throws {
        readyOrGone.wait()
        guard state.withLock({ $0.ready }) else {
            throw LoadError.workerFailed(app: app, reason: "exited before it was ready: \(errorOutput)")
        }
    }

    func go() {
        input.write(Data((WorkerProtocol.go + "\n").utf8))
    }

    /// True once the process has exited; waits at most `milliseconds`.
    func waitForExit(milliseconds: Int) -> Bool {
        guard exited.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return false }
        exited.signal()
        return true
    }

    var progress: Int { state.withLock { $0.progress } }
    var exitStatus: Int32 { process.isRunning ? -1 : process.terminationStatus }
    var errorOutput: String {
        let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func terminate() {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errorFile)
    }
}
