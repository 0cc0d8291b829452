import Foundation
import LoadGeneration

/// A load report for people: one table of operations, then errors and the consistency check.
struct LoadReportText {
    let report: LoadReport

    init(_ report: LoadReport) { self.report = report }

    var rendered: String {
        let configuration = report.configuration
        let what = configuration.workload == .token
            ? "token workload, \(configuration.itemsPerApp) users/app"
                + (configuration.prefillAccounts > 0 ? ", \(configuration.prefillAccounts) accounts prefilled" : "")
            : "\(configuration.itemsPerApp) items/app of \(configuration.valueSize) B"
        let loop = report.requestedRate.map { "open loop at \(format($0)) ops/s requested, \(format(report.throughput)) achieved" }
            ?? "closed loop"
        var text = """
            \(configuration.apps) app\(configuration.apps == 1 ? "" : "s") as \(report.mode.rawValue) on \(report.backend), \
            mix \(configuration.mix), \(what), \(loop), \(String(format: "%.2f", report.seconds)) s measured

            """
        let rows = report.operations.map { stats in
            [stats.operation.rawValue, "\(stats.count)", format(stats.throughput), format(stats.p50), format(stats.p90),
             format(stats.p99), format(stats.p999), format(stats.max),
             stats.expectedOutcomes.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")]
        }
        let total = ["all", "\(report.totalOperations)", format(report.throughput), format(report.overall.p50), format(report.overall.p90),
                     format(report.overall.p99), format(report.overall.p999), format(report.overall.max), ""]
        text += Table(header: ["OP", "CALLS", "CALLS/S", "P50 µs", "P90 µs", "P99 µs", "P99.9 µs", "MAX µs", "EXPECTED OUTCOMES"],
                      rows: rows + [total]).rendered
        let errors = report.errorsByStatus.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
        text += "unexpected errors: \(report.unexpectedErrors)\(errors.isEmpty ? "" : " (\(errors))")\n"
        let duringReconnects = report.reconnectErrors.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
        text += "reconnects: \(report.reconnects)"
            + (duringReconnects.isEmpty ? "" : ", failed calls while reconnecting: \(duringReconnects) (not counted as unexpected)") + "\n"
        if let failure = report.checkFailure {
            text += "consistency: NOT CHECKED: the group could not be listed after the run: \(failure) -> FAIL\n\n"
            return text
        }
        let consistency = report.consistency
        if configuration.workload == .token {
            text += "consistency: \(consistency.accountsChecked) users checked, \(consistency.accountsListed) accounts listed, "
                + "\(consistency.lostSignIns) lost sign-ins, \(consistency.resurrectedAccounts) resurrected accounts"
                + " -> \(report.passed ? "PASS" : "FAIL")\n"
                + (report.totalOperations == 0 ? "FAIL: no operation was measured; raise --duration or --operations\n" : "")
                + "\n"
            return text
        }
        text += "consistency: \(consistency.keysChecked) keys checked, \(consistency.itemsPresent) present, "
            + "\(consistency.lostUpdates) lost updates, \(consistency.resurrectedItems) resurrected, "
            + "\(consistency.unacknowledgedWrites) unacknowledged writes landed"
            + (consistency.foreignItems > 0 ? ", \(consistency.foreignItems) foreign items" : "")
            + (consistency.tokenCacheItems > 0 ? " (and \(consistency.tokenCacheItems) token cache items)" : "")
            + " -> \(report.passed ? "PASS" : "FAIL")\n"
            + (report.totalOperations == 0 ? "FAIL: no operation was measured; raise --duration or --operations\n" : "")
            + "\n"
        return text
    }

    /// Throughput and p99 against the number of apps, with the ratio to the first count.
    static func sweep(_ reports: [LoadReport]) -> String {
        let base = reports.first?.throughput ?? 0
        let rows = reports.map { report in
            ["\(report.configuration.apps)", String(format: "%.0f", report.throughput), String(format: "%.2f", base > 0 ? report.throughput / base : 0),
             String(format: "%.0f", report.overall.p99), report.passed ? "pass" : "FAIL"]
        }
        return Table(header: ["APPS", "CALLS/S", "VS FIRST", "P99 µs", "CONSISTENCY"], rows: rows).rendered
    }

    private func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }
}
