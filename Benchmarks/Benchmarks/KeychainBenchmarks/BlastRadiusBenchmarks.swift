import Benchmark
import Foundation
import SuiteManifest

/// `suite blast-radius apps=N`: the report of a generated suite of N apps (`suite init --apps N`,
/// loaded once outside the measurement), as the CLI makes it: the analysis, the text, the JSON
/// and the SVG. N = 10, 100, 200 and 1,000 (BENCH_BLAST_APPS adds another); no keyring.
func blastRadiusBenchmarks() {
    let extra = environment("BENCH_BLAST_APPS", default: 0)
    for apps in [10, 100, 200, 1_000] + (extra > 0 ? [extra] : []) {
        Benchmark(
            "suite blast-radius apps=\(apps)",
            configuration: configuration(iterations: apps >= 1_000 ? 5 : 50, seconds: apps >= 1_000 ? 60 : 10),
            closure: { (benchmark, suite: SuiteFixture) throws in
                for _ in benchmark.scaledIterations {
                    let radius = try BlastRadius(suite.suite)
                    blackHole(radius.text)
                    blackHole(try JSONEncoder().encode(radius))
                    blackHole(radius.svg)
                }
            },
            setup: { try SuiteFixture(apps: apps) })
    }
}

/// A generated suite, loaded from a manifest in a temporary directory.
final class SuiteFixture: @unchecked Sendable {
    let suite: Suite

    init(apps: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blast-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ExampleSuite.writeGenerated(apps: apps, to: directory)
        suite = try SuiteManifest.load(from: directory)
    }
}
