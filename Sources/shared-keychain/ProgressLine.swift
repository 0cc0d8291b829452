import Foundation
import LoadGeneration

/// A live progress line on standard error: rewritten in place on a terminal, one line a
/// second otherwise (CI logs).
final class ProgressLine: Sendable {
    private let label: String
    private let started = Date()
    private let total: Double
    private let unit: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let lastLine = Mutex<Date>(.distantPast)

    init(label: String, expected configuration: LoadConfiguration) {
        self.label = label
        if let operations = configuration.operations {
            total = Double(operations * configuration.apps)
            unit = "calls"
        } else {
            total = configuration.warmup + configuration.duration
            unit = "s"
        }
    }

    func update(_ calls: Int) {
        let elapsed = Date().timeIntervalSince(started)
        let done = unit == "s" ? String(format: "%.1f/%.0f s", min(elapsed, total), total) : "\(calls)/\(Int(total)) calls"
        let rate = elapsed > 0 ? Int(Double(calls) / elapsed) : 0
        let line = "load \(label): \(done), \(calls) calls, \(rate)/s"
        if isTerminal {
            Output.standardError.write("\r\u{1B}[K\(line)")
        } else {
            let due = lastLine.withLock { last -> Bool in
                guard Date().timeIntervalSince(last) >= 1 else { return false }
                last = Date()
                return true
            }
            if due { Output.standardError.write("\(line)\n") }
        }
    }

    func finish() {
        if isTerminal { Output.standardError.write("\n") }
    }
}

import Synchronization
