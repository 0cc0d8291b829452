import Histogram

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

    init(operation: LoadOperation, histogram: Histogram<UInt64>, seconds: Double, expected: [String: Int], errors: [String: Int]) {
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
    }
}
