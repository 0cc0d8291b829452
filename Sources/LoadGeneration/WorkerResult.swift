import Histogram
import TokenCache

/// What one simulated app measured and acknowledged; merged by the runner into a report.
/// Codable, so an app running as its own process hands it back as JSON.
public struct WorkerResult: Sendable, Codable {
    public var app: Int
    /// Latency of each measured call, in nanoseconds.
    public var latencies: [LoadOperation: Histogram<UInt64>] = [:]
    /// Outcomes that Keychain Services gives in normal use (errSecItemNotFound for a read of
    /// a deleted item), by operation and status name.
    public var expectedOutcomes: [LoadOperation: [String: Int]] = [:]
    /// Everything else, by operation and status name.
    public var errors: [LoadOperation: [String: Int]] = [:]
    /// How often the app's store reconnected to a restarted Secret Service.
    public var reconnects = 0
    /// Failed calls during which the store reconnected (the daemon restarting caused them),
    /// by status name; they are also in ``errors``.
    public var reconnectErrors: [String: Int] = [:]
    /// Faults the device's fault plan injected into the app's measured calls, by status name.
    public var injectedFaults: [String: Int] = [:]
    /// Failed measured operations during which the plan injected a fault, by status name; they
    /// are also in ``errors``.
    public var injectedFailures: [String: Int] = [:]
    /// The acknowledged changes the consistency check needs, warm-up included: bounded by the
    /// app's keys, however long the run.
    public var journal = ChangeJournal()
    /// The keychain calls the token cache made during the measured calls, by operation and
    /// SecItem function (token workload; from the cache's ``KeychainCallTrace``).
    public var keychainCalls: [LoadOperation: [String: Int]] = [:]
    /// Items of the group the app's token cache could not read and skipped, each once.
    public var skippedItems: [SkippedItem] = []
    /// Monotonic nanoseconds of the first and last measured call.
    public var measuredStart: UInt64 = .max
    public var measuredEnd: UInt64 = 0
    /// Monotonic nanoseconds of the first call's start and the last call's end, warm-up
    /// included: when the app was at work, for the consistency check.
    public var activeStart: UInt64 = .max
    public var activeEnd: UInt64 = 0

    /// When the app was at work; nil when it made no call.
    public var activity: ClosedRange<UInt64>? { activeStart <= activeEnd ? activeStart...activeEnd : nil }

    public init(app: Int) { self.app = app }

    mutating func record(_ operation: LoadOperation, nanoseconds: UInt64, start: UInt64, end: UInt64) {
        latencies[operation, default: Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)]
            .record(nanoseconds)
        measuredStart = min(measuredStart, start)
        measuredEnd = max(measuredEnd, end)
    }
}

/// An acknowledged change, kept for the consistency check after the run.
public struct JournalEntry: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable {
        /// The owner wrote `version` to its key.
        case write
        /// The owner deleted its key (or found it absent).
        case delete
        /// Someone deleted the whole group.
        case wipe
        /// Token workload: the owner signed in its user number `key`.
        case signIn
        /// Token workload: the owner removed its user number `key` (or found it absent).
        case removeAccount
    }

    public var kind: Kind
    /// The owner's key index (its user's, in the token workload); unused for a wipe.
    public var key: Int
    public var version: Int
    /// Monotonic nanoseconds when the call started and when it returned.
    public var start: UInt64
    public var end: UInt64
}

/// One app's acknowledged changes, reduced to what the consistency check reads: per key the
/// last change and the last write (versions only grow, so it is the highest acknowledged one),
/// and of all wipes the one that ended last (the check only asks whether some wipe ended after
/// a change began). At most two entries per key and one wipe, however long the run: a journal
/// of every change grew by about 40 bytes per acknowledged change for as long as the run lasted.
public struct ChangeJournal: Sendable, Codable, Hashable {
    private var lastChange: [Int: JournalEntry] = [:]
    private var lastWrite: [Int: JournalEntry] = [:]
    private var latestWipe: JournalEntry?

    public init() {}

    /// Records an acknowledged change, made after every change recorded before it.
    public mutating func append(_ entry: JournalEntry) {
        switch entry.kind {
        case .wipe:
            if entry.end >= latestWipe?.end ?? 0 { latestWipe = entry }
        case .write:
            lastWrite[entry.key] = entry
            lastChange[entry.key] = entry
        case .delete, .signIn, .removeAccount:
            lastChange[entry.key] = entry
        }
    }

    /// The entries kept, oldest first: the consistency check reads them exactly as it reads
    /// every change of the run.
    public var entries: [JournalEntry] {
        let writes = lastWrite.values.filter { lastChange[$0.key] != $0 }
        return (writes + lastChange.values + (latestWipe.map { [$0] } ?? [])).sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// How many entries are kept.
    public var count: Int { entries.count }
}

/// Throughput and latency of one operation over a run. Latencies in microseconds.
public struct OperationStatistics: Sendable, Codable, Hashable {
    public var operation: LoadOperation
    public var count: Int
    public var throughput: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double
    public var expectedOutcomes: [String: Int]
    public var errors: [String: Int]
    /// Keychain calls per operation, by SecItem function (token workload), averaged.
    public var keychainCallsPerOperation: [String: Double]?
    /// Items added, changed or deleted per operation (token workload), averaged: the writes
    /// that reach the store, fewer than the write calls, as an update that finds nothing (before
    /// each add) changes nothing.
    public var itemsWrittenPerOperation: Double?

    init(
        operation: LoadOperation, histogram: Histogram<UInt64>, seconds: Double, expected: [String: Int], errors: [String: Int],
        keychainCalls: [String: Int]? = nil
    ) {
        self.operation = operation
        count = Int(histogram.totalCount)
        throughput = seconds > 0 ? Double(histogram.totalCount) / seconds : 0
        func micros(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
        p50 = micros(50)
        p90 = micros(90)
        p99 = micros(99)
        p999 = micros(99.9)
        max = Double(histogram.max) / 1000
        expectedOutcomes = expected
        self.errors = errors
        let total = Double(Swift.max(count, 1))
        keychainCallsPerOperation = keychainCalls.map { $0.filter { $0.key != KeychainCallCounter.itemsWritten }.mapValues { Double($0) / total } }
        itemsWrittenPerOperation = keychainCalls.map { Double($0[KeychainCallCounter.itemsWritten] ?? 0) / total }
    }
}
