import Histogram

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
    /// Every acknowledged change, warm-up included, in the order made.
    public var journal: [JournalEntry] = []
    /// Monotonic nanoseconds of the first and last measured call.
    public var measuredStart: UInt64 = .max
    public var measuredEnd: UInt64 = 0

    public init(app: Int) { self.app = app }

    mutating func record(_ operation: LoadOperation, nanoseconds: UInt64, start: UInt64, end: UInt64) {
        latencies[operation, default: Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)]
            .record(nanoseconds)
        measuredStart = min(measuredStart, start)
        measuredEnd = max(measuredEnd, end)
    }
}
