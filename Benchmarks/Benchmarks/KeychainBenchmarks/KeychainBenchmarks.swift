import Benchmark
import Foundation
import KeychainStorage
import LoadGeneration
import SharedKeychain
import TokenCache

// Names are `<backend> <operation>`, backends: memory, session, persistent, default, raw (see
// Backend). Single-item operations work in a group of 100; `raw` and `default` share the
// `login` collection, so `default` vs `raw` is the emulator's cost over plain libsecret on
// the same collection. Every benchmark runs in its own process on its own private keyring.
//
// Environment knobs (inherited by the benchmark processes):
//   BENCH_OTHER_ITEMS   items put in other groups for `* write others` (default 10000)
//   BENCH_FILL_SECONDS  time limit for that fill; the count reached is the `other items` metric (default 240)
//   BENCH_LIST_ITEMS    the listing group's size (default 1000)
//   BENCH_WIPE_ITEMS    the larger wipe's size (default 1000)
//   BENCH_SMOKE=1       CI smoke: 2 iterations each, small groups

/// Per-benchmark state made by setup: the timed operations and a counter for fresh keys.
final class Fixture: @unchecked Sendable {
    let target: any Target
    var next = 0
    init(_ target: any Target) { self.target = target }
}

let opsPerSecond = BenchmarkMetric.custom("ops/s", polarity: .prefersLarger, useScalingFactor: false)
let otherItems = BenchmarkMetric.custom("other items", polarity: .prefersLarger, useScalingFactor: false)
let rawMicroseconds = BenchmarkMetric.custom("raw us", polarity: .prefersSmaller, useScalingFactor: false)
let emulatorMicroseconds = BenchmarkMetric.custom("emulator us", polarity: .prefersSmaller, useScalingFactor: false)
/// Per iteration, the emulator's time in percent of raw libsecret's: its median is the ratio.
let emulatorPercentOfRaw = BenchmarkMetric.custom("emulator % of raw", polarity: .prefersSmaller, useScalingFactor: false)

/// BENCH_SMOKE=1: at most 2 iterations each, no warm-up, small groups (a seconds-long CI check
/// that every benchmark still runs; its figures mean nothing).
let smoke = environment("BENCH_SMOKE", default: 0) != 0

func configuration(
    iterations: Int, seconds: Int, warmup: Int = 1, extra: [BenchmarkMetric] = []
) -> Benchmark.Configuration {
    .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal] + extra,
        timeUnits: .microseconds,
        warmupIterations: smoke ? 0 : warmup,
        scalingFactor: .one,
        maxDuration: .seconds(smoke ? min(seconds, 5) : seconds),
        maxIterations: smoke ? min(iterations, 2) : iterations)
}

/// Few, slow iterations against the daemon; many short ones in memory.
func singleItemConfiguration(_ backend: Backend) -> Benchmark.Configuration {
    backend == .memory
        ? configuration(iterations: 20_000, seconds: 1, warmup: 10)
        : configuration(iterations: 100, seconds: 4, warmup: 3)
}

func teardown(_ backend: Backend) -> Benchmark.BenchmarkTeardownHook? {
    backend == .memory ? nil : { BenchKeyring.stop() }
}

/// A fixture with items 0..<count in the main group.
func filled(_ backend: Backend, _ count: Int) throws -> Fixture {
    let fixture = Fixture(try backend.target())
    try fixture.target.fill(0..<count)
    return fixture
}

let benchmarks: @Sendable () -> Void = {
    let listItems = environment("BENCH_LIST_ITEMS", default: smoke ? 100 : 1000)
    let wipeItems = environment("BENCH_WIPE_ITEMS", default: smoke ? 200 : 1000)
    let otherCount = environment("BENCH_OTHER_ITEMS", default: smoke ? 200 : 10_000)
    let fillSeconds = Double(environment("BENCH_FILL_SECONDS", default: 240))

    // MARK: 1. Single items, in a group of 100

    for backend in Backend.allCases {
        let name = backend.rawValue
        Benchmark(
            "\(name) read", configuration: singleItemConfiguration(backend),
            closure: { (benchmark, fixture: Fixture) throws in
                for _ in benchmark.scaledIterations {
                    try fixture.target.read(fixture.next % 100)
                    fixture.next += 1
                }
            },
            setup: { try filled(backend, 100) }, teardown: teardown(backend))

        // A new key each time; deleted again outside the measurement, so the group stays at 100.
        Benchmark(
            "\(name) write", configuration: singleItemConfiguration(backend),
            closure: { (benchmark, fixture: Fixture) throws in
                let index = 100 + fixture.next
                fixture.next += 1
                try fixture.target.add(index, group: Names.group)
                benchmark.stopMeasurement()
                try fixture.target.delete(index)
            },
            setup: { try filled(backend, 100) }, teardown: teardown(backend))

        Benchmark(
            "\(name) update", configuration: singleItemConfiguration(backend),
            closure: { (benchmark, fixture: Fixture) throws in
                for _ in benchmark.scaledIterations {
                    try fixture.target.update(fixture.next % 100, data: fixture.next % 2 == 0 ? Names.otherValue : Names.value)
                    fixture.next += 1
                }
            },
            setup: { try filled(backend, 100) }, teardown: teardown(backend))

        // Deletes one item; it is added again outside the measurement.
        Benchmark(
            "\(name) delete", configuration: singleItemConfiguration(backend),
            closure: { (benchmark, fixture: Fixture) throws in
                let index = fixture.next % 100
                fixture.next += 1
                try fixture.target.delete(index)
                benchmark.stopMeasurement()
                try fixture.target.add(index, group: Names.group)
            },
            setup: { try filled(backend, 100) }, teardown: teardown(backend))
    }

    // The emulator-only backends below; `default` (the login collection) is only for the
    // like-for-like single-item comparison with raw.
    let bulkBackends: [Backend] = [.memory, .session, .persistent, .raw]

    // MARK: 1b. The emulator against raw libsecret, interleaved: each iteration makes the same
    // call both ways on the same collection (login), in alternating order, and records both
    // times, so drift in the machine (fsync cost, other load) hits both sides alike.

    for operation in ["read", "write"] {
        Benchmark(
            "interleaved \(operation)",
            configuration: configuration(
                iterations: 200, seconds: 20, warmup: 3, extra: [rawMicroseconds, emulatorMicroseconds, emulatorPercentOfRaw]),
            closure: { (benchmark, fixture: PairFixture) throws in
                let index = fixture.next
                fixture.next += 1
                let rawFirst = index % 2 == 0
                var times: [Bool: Duration] = [:]
                for raw in rawFirst ? [true, false] : [false, true] {
                    let target: any Target = raw ? fixture.raw : fixture.emulator
                    let key = raw ? index % 100 : 100 + index % 100
                    let clock = ContinuousClock()
                    let start = clock.now
                    if operation == "read" {
                        try target.read(key)
                    } else {
                        try target.add(200 + 2 * index + (raw ? 0 : 1), group: Names.group)
                    }
                    times[raw] = clock.now - start
                }
                benchmark.measurement(rawMicroseconds, Int((times[true] ?? .zero) / .microseconds(1)))
                benchmark.measurement(emulatorMicroseconds, Int((times[false] ?? .zero) / .microseconds(1)))
                let raw = max((times[true] ?? .zero) / .microseconds(1), 1)
                benchmark.measurement(emulatorPercentOfRaw, Int(((times[false] ?? .zero) / .microseconds(1) * 100 / raw).rounded()))
                if operation == "write" {
                    benchmark.stopMeasurement()
                    try fixture.raw.delete(200 + 2 * index)
                    try fixture.emulator.delete(200 + 2 * index + 1)
                }
            },
            setup: { try PairFixture() }, teardown: teardown(.raw))
    }

    // MARK: 2. Listing a group of 1,000, secrets included

    for backend in bulkBackends {
        Benchmark(
            "\(backend.rawValue) list \(listItems)",
            configuration: backend == .memory
                ? configuration(iterations: 500, seconds: 2)
                : configuration(iterations: 15, seconds: 40, warmup: 1),
            closure: { (benchmark, fixture: Fixture) throws in
                let count = try fixture.target.list()
                guard count == listItems else { throw BenchError("listed \(count) of \(listItems)") }
            },
            setup: { try filled(backend, listItems) }, teardown: teardown(backend))
    }

    // MARK: 3. Wiping a group (refilled outside the measurement)

    for backend in bulkBackends {
        for size in [100, wipeItems] {
            let iterations = backend == .memory ? 50 : (size > 100 ? 2 : 3)
            Benchmark(
                "\(backend.rawValue) wipe \(size)",
                configuration: configuration(iterations: iterations, seconds: 600, warmup: backend == .memory ? 2 : 0),
                closure: { (benchmark, fixture: Fixture) throws in
                    try fixture.target.fill(0..<size)
                    benchmark.startMeasurement()
                    try fixture.target.wipe(count: size)
                    benchmark.stopMeasurement()
                },
                setup: { Fixture(try backend.target()) }, teardown: teardown(backend))
        }
    }

    // MARK: 4. Token cache: silent acquire in a group of ~100 items; account listing with 10
    // and with 1,000 items in the group

    for backend in [Backend.memory, .session, .persistent] {
        let tokenConfiguration = backend == .memory
            ? configuration(iterations: 2000, seconds: 2)
            : configuration(iterations: 30, seconds: 5, warmup: 2)
        Benchmark(
            "\(backend.rawValue) token silent acquire", configuration: tokenConfiguration,
            closure: { (benchmark, fixture: TokenFixture) throws in
                let result = try fixture.cache.acquireTokenSilent(account: fixture.username, scopes: TokenCache.defaultScopes)
                guard result.source == .cache else { throw BenchError("silent acquire came from \(result.source), not the cache") }
            },
            setup: { try TokenFixture(backend, items: smoke ? 20 : 100) }, teardown: teardown(backend))
        for items in [10, smoke ? 100 : 1000] {
            Benchmark(
                "\(backend.rawValue) token accounts \(items)", configuration: tokenConfiguration,
                closure: { (benchmark, fixture: TokenFixture) throws in
                    let accounts = try fixture.cache.accounts()
                    guard accounts.count == fixture.users else { throw BenchError("\(accounts.count) accounts, expected \(fixture.users)") }
                },
                setup: { try TokenFixture(backend, items: items) }, teardown: teardown(backend))
        }
    }

    // MARK: 4b. Sign-in of a new user with 10 and with 1,000 accounts already in the group (P7),
    // and the cost curve of one write against the items already in the group

    for (backend, accounts) in [(Backend.persistent, 10), (.persistentOwn, 10), (.persistent, smoke ? 50 : 1000)] {
        Benchmark(
            "\(backend.rawValue) token signin accounts=\(accounts)",
            configuration: configuration(iterations: 200, seconds: 10, warmup: 3),
            closure: { (benchmark, fixture: TokenFixture) throws in
                fixture.next += 1
                _ = try fixture.cache.signIn(username: "new\(fixture.next)@contoso.com", tenant: "contoso.com")
            },
            setup: { try TokenFixture(backend, accounts: accounts) }, teardown: teardown(backend))
    }

    for size in smoke ? [10, 100] : [10, 100, 1000, 5000] {
        Benchmark(
            "persistent write group=\(size)",
            configuration: configuration(iterations: 100, seconds: 4, warmup: 3),
            closure: { (benchmark, fixture: Fixture) throws in
                let index = size + fixture.next
                fixture.next += 1
                try fixture.target.add(index, group: Names.group)
                benchmark.stopMeasurement()
                try fixture.target.delete(index)
            },
            setup: { try filled(.persistent, size) }, teardown: teardown(.persistent))
    }

    scaleBenchmarks()

    // MARK: 5. Concurrent apps: read=60, write=30, list=10, a fixed operation count per run

    for backend in [Backend.memory, .persistent] {
        for apps in [1, 2, 4, 8] {
            let total = (backend == .memory ? 8_000 : 240) / (smoke ? 10 : 1)
            Benchmark(
                "\(backend.rawValue) load apps=\(apps)",
                configuration: configuration(
                    iterations: backend == .memory ? 10 : 3, seconds: 60, warmup: backend == .memory ? 1 : 0,
                    extra: [opsPerSecond]),
                closure: { (benchmark, store: any ItemStore) throws in
                    let configuration = LoadConfiguration(
                        apps: apps, mix: try OperationMix(parsing: "read=60,write=30,list=10"),
                        itemsPerApp: 200 / apps, valueSize: Names.valueSize, duration: 1,
                        operations: total / apps, warmup: 0, seed: 1)
                    let report = try LoadRunner(configuration: configuration, store: store).runInThreads()
                    guard report.passed else {
                        throw BenchError("load run failed: \(report.unexpectedErrors) unexpected errors, consistent: \(report.consistency.isConsistent)")
                    }
                    benchmark.measurement(opsPerSecond, Int(report.throughput.rounded()))
                },
                setup: { try backend.store() }, teardown: teardown(backend))
        }
    }

    // MARK: 6. A write with many items in other groups (compare with `<backend> write`)

    for backend in [Backend.persistent, .session] {
        Benchmark(
            "\(backend.rawValue) write others",
            configuration: configuration(iterations: 100, seconds: 4, warmup: 3, extra: [otherItems]),
            closure: { (benchmark, fixture: OthersFixture) throws in
                let index = 100 + fixture.base.next
                fixture.base.next += 1
                try fixture.base.target.add(index, group: Names.group)
                benchmark.stopMeasurement()
                try fixture.base.target.delete(index)
                benchmark.measurement(otherItems, fixture.others)
            },
            setup: {
                let base = try filled(backend, 100)
                let others = try fillOtherGroups(base.target, count: otherCount, seconds: fillSeconds)
                return OthersFixture(base: base, others: others)
            },
            teardown: teardown(backend))
    }

    // A read (one service-wide search + GetSecret) with the same fill: how much of the write's
    // change is the duplicate-key search, which gnome-keyring runs over every collection.
    Benchmark(
        "persistent read others",
        configuration: configuration(iterations: 100, seconds: 4, warmup: 3, extra: [otherItems]),
        closure: { (benchmark, fixture: OthersFixture) throws in
            try fixture.base.target.read(fixture.base.next % 100)
            fixture.base.next += 1
            benchmark.measurement(otherItems, fixture.others)
        },
        setup: {
            let base = try filled(.persistent, 100)
            let others = try fillOtherGroups(base.target, count: otherCount, seconds: fillSeconds)
            return OthersFixture(base: base, others: others)
        },
        teardown: teardown(.persistent))

    // MARK: 7. A suite's blast radius (no keyring): BlastRadiusBenchmarks.swift

    blastRadiusBenchmarks()
}

/// Raw libsecret and the emulator (default layout) on one keyring, both in `login`: raw holds
/// keys 0..<100, the emulator 100..<200, so reads by each find their own.
final class PairFixture: @unchecked Sendable {
    let raw: any Target
    let emulator: any Target
    var next = 0

    init() throws {
        raw = try Backend.raw.target()
        emulator = try Backend.default.target()
        try raw.fill(0..<100)
        try emulator.fill(100..<200)
    }
}

final class OthersFixture: @unchecked Sendable {
    let base: Fixture
    /// How many items the other groups hold.
    let others: Int
    init(base: Fixture, others: Int) {
        self.base = base
        self.others = others
    }
}

/// A shared MSAL cache of signed-in users, padded by sign-ins until the group holds at least
/// `items` items (a sign-in writes 6, the first one 7).
final class TokenFixture: @unchecked Sendable {
    let cache: TokenCache
    let username = "user0@contoso.com"
    let users: Int
    /// For benchmarks that sign in new users.
    var next = 0

    /// `accounts` users signed in.
    convenience init(_ backend: Backend, accounts: Int) throws {
        try self.init(backend, items: 0, accounts: accounts)
    }

    init(_ backend: Backend, items: Int, accounts: Int = 0) throws {
        let team = try TeamIdentifier(Names.team)
        let app = try AppIdentity(
            bundleID: "com.contoso.mail", teamID: team,
            keychainAccessGroups: [AccessGroup(teamID: team, identifier: TokenCacheConfiguration.defaultSharingGroup)])
        let keychain = Keychain(app: app, store: try backend.store())
        cache = try TokenCache(
            keychain: keychain,
            configuration: TokenCacheConfiguration(clientID: "d3590ed6-52b3-4102-aeff-aad2292ab01c", familyID: "1"))
        var users = 0
        while try users < accounts || keychain.copyAll(.all(in: cache.accessGroup)).count < items {
            _ = try cache.signIn(username: "user\(users)@contoso.com", tenant: "contoso.com")
            users += 1
        }
        self.users = users
    }
}
