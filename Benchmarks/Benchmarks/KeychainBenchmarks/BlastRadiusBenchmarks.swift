import Benchmark
import Foundation
import SuiteManifest

/// `suite blast-radius apps=N output=text|json|svg`: what one `suite blast-radius` command
/// does for a generated suite of N apps (`suite init --apps N`, loaded once outside the
/// measurement): the analysis, then the text report, `--json` or `--output x.svg`. N = 10, 100,
/// 200 and 1,000 (BENCH_BLAST_APPS adds another); no keyring.
func blastRadiusBenchmarks() {
    let extra = environment("BENCH_BLAST_APPS", default: 0)
    let outputs: [(name: String, make: @Sendable (BlastRadius) throws -> Void)] = [
        ("text", { blackHole($0.text) }),
        ("json", { blackHole(try JSONEncoder().encode($0)) }),
        ("svg", { blackHole($0.svg) }),
    ]
    for apps in [10, 100, 200, 1_000] + (extra > 0 ? [extra] : []) {
        for output in outputs {
            Benchmark(
                "suite blast-radius apps=\(apps) output=\(output.name)",
                configuration: configuration(iterations: apps >= 1_000 ? 5 : 50, seconds: apps >= 1_000 ? 60 : 10),
                closure: { (benchmark, suite: SuiteFixture) throws in
                    for _ in benchmark.scaledIterations {
                        try output.make(try BlastRadius(suite.suite))
                    }
                },
                setup: { try SuiteFixture(apps: apps) })
        }
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
