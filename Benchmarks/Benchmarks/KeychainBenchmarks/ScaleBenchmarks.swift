import Benchmark
import Foundation
import KeychainStorage
import SharedKeychain

// MARK: Big groups (issue 32): 10, 1,000 and 10,000 items
//
// `scale first <call> group=N`: a new store (what every CLI command makes) and its first call,
// one item, in a group of N; flat when the census of the group's shard index is kept.
// `scale list group=N`: every item of the group, secrets included (`snapshot`, `item list`).
// `scale fill group=N`: putting the N items in, one add each (`restore`, `cache import`).
// Not in the CI smoke's filter; with BENCH_SMOKE=1 only the 10-item group runs, in seconds.

/// A group of `count` items for the scale benchmarks; the store that filled it is dropped.
func scaleFixture(_ count: Int) throws -> Fixture {
    let fixture = try filled(.persistent, count)
    fixture.next = count
    return fixture
}

func scaleBenchmarks() {
    let sizes = smoke ? [10] : [10, 1_000, 10_000]
    for size in sizes {
        for call in ["get", "add", "update", "delete"] {
            Benchmark(
                "scale first \(call) group=\(size)",
                configuration: configuration(iterations: 50, seconds: 10, warmup: 2),
                closure: { (benchmark, fixture: Fixture) throws in
                    let index = fixture.next
                    fixture.next += 1
                    let existing = index % size
                    if call != "add" && call != "get" { try fixture.target.add(index, group: Names.group) }
                    // A new store, as a new process has: only its first call is timed.
                    let fresh = try EmulatorTarget(store: Backend.persistent.store())
                    benchmark.startMeasurement()
                    switch call {
                    case "get": try fresh.read(existing)
                    case "add": try fresh.add(index, group: Names.group)
                    case "update": try fresh.update(index, data: Names.otherValue)
                    default: try fresh.delete(index)
                    }
                    benchmark.stopMeasurement()
                    if call == "add" || call == "update" { try fixture.target.delete(index) }
                },
                setup: { try scaleFixture(size) }, teardown: teardown(.persistent))
        }

        Benchmark(
            "scale list group=\(size)",
            configuration: configuration(iterations: size >= 10_000 ? 5 : 20, seconds: 60, warmup: 1),
            closure: { (benchmark, fixture: Fixture) throws in
                let fresh = try EmulatorTarget(store: Backend.persistent.store())
                benchmark.startMeasurement()
                let count = try fresh.list()
                benchmark.stopMeasurement()
                guard count == size else { throw BenchError("listed \(count) items, expected \(size)") }
            },
            setup: { try scaleFixture(size) }, teardown: teardown(.persistent))

        Benchmark(
            "scale fill group=\(size)",
            configuration: configuration(iterations: size >= 10_000 ? 1 : 3, seconds: 600, warmup: 0),
            closure: { (benchmark, fixture: Fixture) throws in
                let base = fixture.next
                fixture.next += size
                try fixture.target.fill(base..<(base + size))
                benchmark.stopMeasurement()
                try fixture.target.wipe(count: size)
            },
            setup: { Fixture(try Backend.persistent.target()) }, teardown: teardown(.persistent))
    }
}
