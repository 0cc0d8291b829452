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
// With BENCH_SMOKE=1 only the 10-item group runs, in seconds: the CI smoke's filter takes those.
//
// The five `first`/`list` benchmarks of a size need the same group, and 10,000 adds take minutes:
// the first of them in a run fills it and keeps a copy of the keyring's files; the others start
// their own daemon on a copy of that copy (see `scaleFixture`).

/// A group of `count` items for the scale benchmarks, in this benchmark's own keyring.
///
/// The first benchmark of a size in a run (`swift package benchmark`, the parent of every
/// benchmark process) fills the group through the emulator, one add each, and saves the keyring's
/// files; later ones start a daemon on a copy of them, so each still changes only its own
/// keyring. Every one then lists the group once in a new store, outside the measurement: that
/// checks the keyring holds the `count` items, and on a copy the store confirms the group's index
/// in the new daemon (a census), as a CLI command does after the keyring restarted.
func scaleFixture(_ count: Int) throws -> Fixture {
    // A setup that throws gets no teardown: its daemons would outlive the run.
    do { return try makeScaleFixture(count) } catch {
        BenchKeyring.stop()
        throw error
    }
}

private func makeScaleFixture(_ count: Int) throws -> Fixture {
    let runDirectory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("skbench-scale-\(getppid())")
    let template = runDirectory.appendingPathComponent("group=\(count)")
    if FileManager.default.fileExists(atPath: template.path) {
        _ = try BenchKeyring.shared(copying: template)
    } else {
        removeTemplatesOfEndedRuns()
        try FileManager.default.createDirectory(
            at: runDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = try filled(.persistent, count)
        try BenchKeyring.saveItems(to: template)
    }
    let fixture = Fixture(try Backend.persistent.target())
    let listed = try fixture.target.list()
    guard listed == count else { throw BenchError("the scale fixture holds \(listed) items, expected \(count)") }
    fixture.next = count
    return fixture
}

/// Saved groups of earlier runs whose `swift package benchmark` has ended.
private func removeTemplatesOfEndedRuns() {
    let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
    let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    for name in names where name.hasPrefix("skbench-scale-") {
        guard let pid = Int32(name.dropFirst("skbench-scale-".count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
        try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
    }
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
