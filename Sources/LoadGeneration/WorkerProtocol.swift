import Foundation

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
        let encoder = JSONEncoder()
        try encoder.encode(result).write(to: resultFile)
    }
}
