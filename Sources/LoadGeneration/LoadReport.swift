import Foundation
import Histogram
import TokenCache

/// The result of one load run: per-operation throughput and latency, errors by status, and
/// the consistency check.
public struct LoadReport: Sendable, Codable, Hashable {
    public enum Mode: String, Sendable, Codable, Hashable {
        case processes, threads
    }

    public var configuration: LoadConfiguration
    public var mode: Mode
    /// The storage: `memory`, `secret-service`.
    public var backend: String
    /// Length of the measured phase, first call to last, in seconds.
    public var seconds: Double
    public var operations: [OperationStatistics]
    public var totalOperations: Int
    public var throughput: Double
    /// Latency over all operations, in microseconds.
    public var overall: OperationStatisticsSummary
    public var errorsByStatus: [String: Int]
    public var unexpectedErrors: Int
    public var consistency: ConsistencyReport
    /// Reconnections to a restarted Secret Service, over all apps.
    public var reconnects: Int
    /// Failed calls during which a reconnection happened, by status (also in ``errorsByStatus``).
    public var reconnectErrors: [String: Int]
    /// Faults the device's fault plan injected into the measured calls, by status, over all
    /// apps: labelled injected, apart from what the store itself answered.
    public var injectedFaults: [String: Int] = [:]
    /// Failed operations during which the plan injected a fault, by status (also in
    /// ``errorsByStatus``, not in ``unexpectedErrors``).
    public var injectedFailures: [String: Int] = [:]
    /// Items of the group the apps' token caches could not read and skipped (another app wrote
    /// them), each once, whichever apps met it.
    public var skippedItems: [SkippedItem]
    /// Why the final listing, and so the consistency check, could not be made; nil when it was.
    public var checkFailure: String?
    /// Open loop: the rate asked for, in operations per second (``throughput`` is the rate
    /// achieved); nil in closed loop.
    public var requestedRate: Double?
    /// Why the simulated apps' items could not be removed after the run; nil when they were.
    public var cleanupFailure: String?
    /// Token workload: responses whose save another app's add ended (errSecDuplicateItem),
    /// over all operations: MSAL's own outcome (`saveData` makes one update and one add, and
    /// `saveTokensWithConfiguration` stops at the failed item), expected on a device. Each is
    /// also in its operation's expected outcomes as ``LoadReport/partialSave``.
    public var partialSaves: Int

    /// True when operations were measured, nothing was lost and nothing failed unexpectedly.
    /// A run that measured nothing proves nothing, so it does not pass.
    public var passed: Bool {
        totalOperations > 0 && unexpectedErrors == 0 && checkFailure == nil && consistency.isConsistent
    }

    public init(
        configuration: LoadConfiguration, mode: Mode, backend: String, results: [WorkerResult], consistency: ConsistencyReport,
        checkFailure: String? = nil
    ) {
        self.configuration = configuration
        self.mode = mode
        self.backend = backend
        let start = results.map(\.measuredStart).min() ?? 0
        let end = results.map(\.measuredEnd).max() ?? 0
        seconds = end > start ? Double(end - start) / 1e9 : 0
        var merged: [LoadOperation: Histogram<UInt64>] = [:]
        var all = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var expected: [LoadOperation: [String: Int]] = [:]
        var errors: [LoadOperation: [String: Int]] = [:]
        var calls: [LoadOperation: [String: Int]] = [:]
        for result in results {
            for (operation, histogram) in result.latencies {
                if merged[operation] == nil { merged[operation] = histogram } else { merged[operation]?.add(histogram) }
                all.add(histogram)
            }
            for (operation, counts) in result.expectedOutcomes { expected[operation, default: [:]].merge(counts, uniquingKeysWith: +) }
            for (operation, counts) in result.errors { errors[operation, default: [:]].merge(counts, uniquingKeysWith: +) }
            for (operation, counts) in result.keychainCalls { calls[operation, default: [:]].merge(counts, uniquingKeysWith: +) }
        }
        let seconds = seconds
        operations = merged.keys.sorted().compactMap { operation in
            merged[operation].map {
                OperationStatistics(operation: operation, histogram: $0, seconds: seconds,
                                    expected: expected[operation] ?? [:], errors: errors[operation] ?? [:], keychainCalls: calls[operation])
            }
        }
        totalOperations = Int(all.totalCount)
        throughput = seconds > 0 ? Double(all.totalCount) / seconds : 0
        overall = OperationStatisticsSummary(all)
        errorsByStatus = errors.values.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
        reconnects = results.reduce(0) { $0 + $1.reconnects }
        reconnectErrors = results.reduce(into: [:]) { $0.merge($1.reconnectErrors, uniquingKeysWith: +) }
        injectedFaults = results.reduce(into: [:]) { $0.merge($1.injectedFaults, uniquingKeysWith: +) }
        injectedFailures = results.reduce(into: [:]) { $0.merge($1.injectedFailures, uniquingKeysWith: +) }
        var seen = Set<SkippedItem>()
        skippedItems = results.flatMap(\.skippedItems).filter { seen.insert($0).inserted }
        // Calls that failed while the daemon restarted are reported, not held against the store.
        let reconnectFailures = reconnectErrors.values.reduce(0, +)
        // Calls the device's fault plan failed are what was asked for, not the store's errors.
        let injectedFailureCount = injectedFailures.values.reduce(0, +)
        unexpectedErrors = errorsByStatus.values.reduce(0, +) - reconnectFailures - injectedFailureCount
        self.consistency = consistency
        self.checkFailure = checkFailure
        requestedRate = configuration.rate
        partialSaves = expected.values.reduce(0) { $0 + ($1[Self.partialSave] ?? 0) }
    }

    /// The expected outcome of a token response whose save another app's add ended: the token
    /// was returned, the items after the failed one were not written.
    public static let partialSave = "partial_save"
}

/// Percentiles over every operation of a run, in microseconds.
public struct OperationStatisticsSummary: Sendable, Codable, Hashable {
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double

    init(_ histogram: Histogram<UInt64>) {
        p50 = Double(histogram.valueAtPercentile(50)) / 1000
        p90 = Double(histogram.valueAtPercentile(90)) / 1000
        p99 = Double(histogram.valueAtPercentile(99)) / 1000
        p999 = Double(histogram.valueAtPercentile(99.9)) / 1000
        max = Double(histogram.max) / 1000
    }
}
