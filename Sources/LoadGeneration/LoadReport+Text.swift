import Foundation
import SharedKeychain

/// A load report for people: one table of operations, then errors and the consistency check.
extension LoadReport: TextReport {
    public var text: String {
        let report = self
        let configuration = report.configuration
        let what = configuration.workload == .token
            ? "token workload, \(configuration.itemsPerApp) users/app"
                + (configuration.prefillAccounts > 0 ? ", \(configuration.prefillAccounts) accounts prefilled" : "")
            : "\(configuration.itemsPerApp) items/app of \(configuration.valueSize) B"
        let loop = report.requestedRate.map { "open loop at \(format($0)) ops/s requested, \(format(report.throughput)) achieved" }
            ?? "closed loop"
        var text = """
            \(configuration.apps.counted("app")) as \(report.mode.rawValue) on \(report.backend), \
            mix \(configuration.mix), \(what), \(loop), \(String(format: "%.2f", report.seconds)) s measured
            group \(DisplayText(configuration.group)) (\(configuration.groupIsRunScoped ? "the run's own, deleted at the end" : "named with \(LoadConfiguration.Setting.group)"))

            """
        let rows = report.operations.map { stats in
            [stats.operation.rawValue, "\(stats.count)", format(stats.throughput), format(stats.p50), format(stats.p90),
             format(stats.p99), format(stats.p999), format(stats.max),
             stats.expectedOutcomes.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")]
        }
        let total = ["all", "\(report.totalOperations)", format(report.throughput), format(report.overall.p50), format(report.overall.p90),
                     format(report.overall.p99), format(report.overall.p999), format(report.overall.max), ""]
        text += TextTable(header: ["OP", "CALLS", "CALLS/S", "P50 µs", "P90 µs", "P99 µs", "P99.9 µs", "MAX µs", "EXPECTED OUTCOMES"],
                      rows: rows + [total]).rendered
        // What each token operation costs the keychain, as MSAL's write pattern makes it.
        let perCall = report.operations.compactMap { stats -> String? in
            guard let calls = stats.keychainCallsPerOperation, !calls.isEmpty else { return nil }
            let writes = ["SecItemUpdate", "SecItemAdd", "SecItemDelete"].reduce(0.0) { $0 + (calls[$1] ?? 0) }
            let written = stats.itemsWrittenPerOperation.map { " (\(String(format: "%.1f", $0)) items written)" } ?? ""
            return "\(stats.operation.rawValue) \(String(format: "%.1f", writes)) writes\(written), \(String(format: "%.1f", calls["SecItemCopyMatching"] ?? 0)) reads"
        }
        if !perCall.isEmpty { text += "keychain calls per operation: \(perCall.joined(separator: "; "))\n" }
        let errors = report.errorsByStatus.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
        text += "unexpected errors: \(report.unexpectedErrors)\(errors.isEmpty ? "" : " (\(errors))")\n"
        let duringReconnects = report.reconnectErrors.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
        text += "reconnects: \(report.reconnects)"
            + (duringReconnects.isEmpty ? "" : ", failed calls while reconnecting: \(duringReconnects) (not counted as unexpected)") + "\n"
        if !report.injectedFaults.isEmpty {
            let faults = report.injectedFaults.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
            let failed = report.injectedFailures.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
            text += "injected faults (the device's fault plan): \(faults)"
                + (failed.isEmpty ? "" : "; operations they failed: \(failed) (not counted as unexpected)") + "\n"
        }
        if let failure = report.cleanupFailure {
            text += "clean-up: the simulated apps' items could not all be removed from \(DisplayText(configuration.group)): \(DisplayText(failure, limit: .max))\n"
        }
        if let failure = report.checkFailure {
            text += "consistency: NOT CHECKED: the group could not be listed after the run: \(DisplayText(failure, limit: .max)) -> FAIL\n\n"
            return text
        }
        let consistency = report.consistency
        if configuration.workload == .token {
            text += "consistency: \(consistency.accountsChecked) users checked, "
                + (consistency.ownUsersOnly
                    ? "\(consistency.accountsListed) of them listed (the run's users only: the group's other accounts were not read), "
                    : "\(consistency.accountsListed) accounts listed, ")
                + "\(consistency.lostSignIns) lost sign-ins, \(consistency.resurrectedAccounts) resurrected accounts"
                + " -> \(report.passed ? "PASS" : "FAIL")\n"
                + "expected on a device: \(consistency.accountMetadataEntriesLost) account-metadata entries lost to MSAL's "
                + "read-modify-write of the client's one item (\(consistency.accountsMislistedByLostMetadata) of them changed the account list)\n"
                + "expected on a device: \(report.partialSaves) partial saves: another app's add (errSecDuplicateItem, -25299) ended a "
                + "response's save, as MSAL's saveData (one update, one add) and saveTokensWithConfiguration (stops at the failed item) do\n"
                + (report.totalOperations == 0 ? "FAIL: no operation was measured; raise \(LoadConfiguration.Setting.duration) or \(LoadConfiguration.Setting.operations)\n" : "")
                + "\n"
            return text
        }
        text += "consistency: \(consistency.keysChecked) keys checked, \(consistency.itemsPresent) present, "
            + "\(consistency.lostUpdates) lost updates, \(consistency.resurrectedItems) resurrected, "
            + "\(consistency.unacknowledgedWrites) unacknowledged writes landed"
            + (consistency.foreignItems > 0 ? ", \(consistency.foreignItems) foreign items" : "")
            + (consistency.existingItems > 0 ? ", \(consistency.existingItems) items from before the run left unchecked" : "")
            + (consistency.tokenCacheItems > 0 ? " (and \(consistency.tokenCacheItems) token cache items)" : "")
            + (consistency.ownItemsOnly ? " (the load's items only: the group's other items were not read)" : "")
            + " -> \(report.passed ? "PASS" : "FAIL")\n"
            + (report.totalOperations == 0 ? "FAIL: no operation was measured; raise \(LoadConfiguration.Setting.duration) or \(LoadConfiguration.Setting.operations)\n" : "")
            + "\n"
        return text
    }

    private func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }
}

/// The reports of one load invocation, one per app count. Its text is each report's, then, for
/// several, throughput and p99 against the number of apps; its JSON is the one report, or the list.
public struct LoadSweep: TextReport, Sendable {
    public let reports: [LoadReport]

    public init(_ reports: [LoadReport]) {
        self.reports = reports
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if reports.count == 1 { try container.encode(reports[0]) } else { try container.encode(reports) }
    }

    public var text: String {
        reports.map(\.text).joined() + (reports.count > 1 ? comparison : "")
    }

    /// Throughput and p99 against the number of apps, with the ratio to the first count.
    private var comparison: String {
        let base = reports.first?.throughput ?? 0
        let rows = reports.map { report in
            ["\(report.configuration.apps)", String(format: "%.0f", report.throughput), String(format: "%.2f", base > 0 ? report.throughput / base : 0),
             String(format: "%.0f", report.overall.p99), report.passed ? "pass" : "FAIL"]
        }
        return TextTable(header: ["APPS", "CALLS/S", "VS FIRST", "P99 µs", "CONSISTENCY"], rows: rows).rendered
    }
}
