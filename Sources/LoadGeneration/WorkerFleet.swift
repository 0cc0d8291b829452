import Foundation
import SharedKeychain
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
        let directory = try Self.makeResultDirectory()
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

extension WorkerFleet {
    /// A fresh directory for the workers' result files, 0700 (`mkdtemp`): results are nobody
    /// else's to read, and no one else can put a file where a worker will write.
    static func makeResultDirectory() throws(LoadError) -> URL {
        var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("sk-load-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else {
            throw .invalidConfiguration("cannot create a directory for the workers' results in \(FileManager.default.temporaryDirectory.path): \(String(cString: strerror(errno)))")
        }
        return URL(fileURLWithPath: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), isDirectory: true)
    }
}

/// One worker process and what it has said so far.
private final class LaunchedWorker: Sendable {
    let app: Int
    private let process: LineProcess
    private let state = Shared()
    private let readyOrGone = DispatchSemaphore(value: 0)

    /// What the reader thread learns, shared with it (a class: the callbacks outlive init).
    private final class Shared: Sendable {
        struct State {
            var progress = 0
            var ready = false
        }
        let lock = Mutex(State())
    }

    init(app: Int, executable: URL, arguments: [String]) throws {
        self.app = app
        let state = state
        let readyOrGone = readyOrGone
        process = try LineProcess(
            executable: executable, arguments: arguments,
            onLine: { line in
                switch WorkerProtocol.Message(line) {
                case .ready:
                    state.lock.withLock { $0.ready = true }
                    readyOrGone.signal()
                case .progress(let count):
                    state.lock.withLock { $0.progress = count }
                case nil:
                    break
                }
            },
            onClose: { readyOrGone.signal() })
    }

    func waitUntilReady() throws {
        readyOrGone.wait()
        guard state.lock.withLock({ $0.ready }) else {
            throw LoadError.workerFailed(app: app, reason: "exited before it was ready: \(errorOutput)")
        }
    }

    func go() { process.send(WorkerProtocol.go) }

    /// True once the process has exited; waits at most `milliseconds`.
    func waitForExit(milliseconds: Int) -> Bool { process.waitForExit(milliseconds: milliseconds) }

    var progress: Int { state.lock.withLock { $0.progress } }
    var exitStatus: Int32 { process.exitStatus }
    var errorOutput: String { process.errorOutput }

    func terminate() { process.terminate() }
}

/// What a worker process and its fleet say to each other, one line at a time: the worker
/// prints `ready`, waits for `go` on its standard input, prints `progress N` as it runs, and
/// writes its ``WorkerResult`` as JSON to the result file before it exits.
public enum WorkerProtocol {
    static let ready = "ready"
    static let go = "go"

    enum Message {
        case ready
        case progress(Int)

        init?(_ line: String) {
            if line == WorkerProtocol.ready { self = .ready; return }
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0] == "progress", let count = Int(parts[1]) else { return nil }
            self = .progress(count)
        }
    }

    /// The worker side: runs `worker` once the fleet says go, and writes the result to
    /// `resultFile`.
    public static func serve(_ worker: LoadWorker, resultFile: URL) throws {
        let output = FileHandle.standardOutput
        output.write(Data((ready + "\n").utf8))
        guard let line = readLine(), line == go else {
            throw LoadError.workerFailed(app: worker.app, reason: "the fleet did not say go")
        }
        let finished = ProgressCounter()
        let done = DispatchSemaphore(value: 0)
        let reporter = Thread {
            while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                output.write(Data("progress \(finished.value)\n".utf8))
            }
        }
        reporter.start()
        let result = worker.run(progress: finished)
        done.signal()
        output.write(Data("progress \(finished.value)\n".utf8))
        // 0600, written whole and renamed into place: the fleet never reads half a result.
        try PrivateFile.write(JSONEncoder().encode(result), to: resultFile)
    }
}
