import Simulation
import SharedKeychain

/// One step of a scenario, told apart by its keys:
///
/// | step | keys |
/// |---|---|
/// | an app performs an operation | `app`, `do`, parameters, `expect`, `delay` |
/// | operations at once | `concurrent:` a list of operation steps |
/// | a job in the background | `background: NAME`, `app`, `do`, parameters, `every`, `times` |
/// | waiting | `wait: 200ms`, or `wait: {job: NAME, runs: N}` |
/// | ending a job | `stop: NAME`, `expect: {runs, ok, failed}` |
/// | moving every app's clock | `advance-clock: 2h` |
/// | the device | `device: lock`, `unlock`, `reboot`, `kill-daemon`, ... |
/// | launching an app | `launch: {app, prewarm, wait-for-protected-data}`, `expect` (``LaunchStep``) |
public enum ScenarioStep: Sendable, Hashable, Decodable {
    case operation(OperationStep)
    case concurrent([OperationStep])
    case background(BackgroundJob)
    case wait(WaitCondition)
    case stop(job: String, expect: ExpectedTally?)
    /// Moves the token clock of every app forward, so access tokens expire.
    case advanceClock(WrittenDuration)
    /// Locks, unlocks or reboots the device, or kills, stops or resumes the keyring's daemon.
    case device(DeviceAction)
    /// Launches an app, prewarmed by iOS or opened by the user; it reads its accounts.
    case launch(LaunchStep)

    static let kinds = ["do", "concurrent", "background", "wait", "stop", "advance-clock", "device", "launch"]

    /// Reads a step by the keys it has.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StepKey.self)
        let present = Self.kinds.filter(container.has)
        guard present.count <= 1 || (present == ["do", "background"]) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a step has exactly one of \(Self.kinds.joined(separator: ", ")); this one has \(present.joined(separator: " and "))"))
        }
        if container.has("background") {
            self = .background(try BackgroundJob(from: container))
        } else if container.has("do") {
            self = .operation(try OperationStep(from: decoder))
        } else if container.has("concurrent") {
            try container.rejectUnknownKeys(allowed: ["concurrent"], in: "a concurrent step")
            let steps = try container.decode([OperationStep].self, "concurrent")
            guard steps.count >= 2 else { throw container.failure("concurrent", "concurrent needs at least two operation steps") }
            self = .concurrent(steps)
        } else if container.has("wait") {
            try container.rejectUnknownKeys(allowed: ["wait"], in: "a wait step")
            self = .wait(try WaitCondition(from: container))
        } else if container.has("stop") {
            try container.rejectUnknownKeys(allowed: ["stop", "expect"], in: "a stop step")
            self = .stop(job: try container.decode(String.self, "stop"), expect: try container.decodeIfPresent(ExpectedTally.self, "expect"))
        } else if container.has("device") {
            try container.rejectUnknownKeys(allowed: ["device"], in: "a device step")
            let name = try container.decode(String.self, "device")
            guard let action = DeviceAction(rawValue: name) else {
                throw container.failure("device", "unknown device action '\(name)'; one of \(DeviceAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .device(action)
        } else if container.has("launch") {
            self = .launch(try LaunchStep(from: container))
        } else if container.has("advance-clock") {
            try container.rejectUnknownKeys(allowed: ["advance-clock"], in: "an advance-clock step")
            self = .advanceClock(try container.decode(WrittenDuration.self, "advance-clock"))
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a step needs one of \(Self.kinds.joined(separator: ", ")); found \(container.allKeys.map(\.stringValue).sorted().joined(separator: ", "))"))
        }
    }
}

/// Any key of a scenario mapping, so that steps can be told apart by the keys they have and
/// keys nobody reads are reported instead of ignored.
struct StepKey: CodingKey, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == StepKey {
    /// Fails on the first key not in `allowed`, naming the allowed ones.
    func rejectUnknownKeys(allowed: [String], in what: String) throws {
        guard let stray = allKeys.first(where: { !allowed.contains($0.stringValue) }) else { return }
        throw DecodingError.dataCorrupted(.init(
            codingPath: codingPath + [stray],
            debugDescription: "unknown key '\(stray.stringValue)' in \(what); known keys: \(allowed.joined(separator: ", "))"))
    }

    func has(_ name: String) -> Bool { contains(StepKey(name)) }

    func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try decode(type, forKey: StepKey(name))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        try decodeIfPresent(type, forKey: StepKey(name))
    }

    /// A plain error at `name`.
    func failure(_ name: String, _ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath + [StepKey(name)], debugDescription: message))
    }

    /// A pause (`wait`, `every`, `delay`) at `name`, at most a day: a longer one is a typo that
    /// would hang the run.
    func pauseIfPresent(_ name: String) throws -> WrittenDuration? {
        guard let pause = try decodeIfPresent(WrittenDuration.self, name) else { return nil }
        guard pause <= WrittenDuration.longestPause else {
            throw failure(name, "\(name) must be at most \(WrittenDuration.longestPause); got \(pause)")
        }
        return pause
    }

    /// A count of runs (`times`, `runs`) at `name`, from 1 to a million.
    func countIfPresent(_ name: String) throws -> Int? {
        guard let count = try decodeIfPresent(Int.self, name) else { return nil }
        guard (1...1_000_000).contains(count) else {
            throw failure(name, "\(name) must be a whole number from 1 to 1000000; got \(count)")
        }
        return count
    }
}

/// `- app: com.contoso.mail` / `do: token signin` / `user: alice@contoso.com`: one app performs
/// one operation; `expect` makes it an assertion; `delay` (inside `concurrent`) starts it later.
public struct OperationStep: Sendable, Hashable, Decodable {
    /// The bundle ID of the app, as in the suite.
    public var app: String
    public var operation: ScenarioOperation
    public var expect: ExpectedOutcome?
    /// How long to wait before starting, counted from the start of its `concurrent` block.
    public var delay: WrittenDuration?

    /// - Parameters: see the properties.
    public init(app: String, operation: ScenarioOperation, expect: ExpectedOutcome? = nil, delay: WrittenDuration? = nil) {
        self.app = app
        self.operation = operation
        self.expect = expect
        self.delay = delay
    }

    static let ownKeys = ["app", "do", "expect", "delay"]

    /// Reads `app`, `do`, `expect`, `delay` and the operation's parameters.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StepKey.self)
        operation = try ScenarioOperation(from: container, alongside: Self.ownKeys, in: "an operation step")
        app = try container.decode(String.self, "app")
        expect = try container.decodeIfPresent(ExpectedOutcome.self, "expect")
        delay = try container.pauseIfPresent("delay")
    }
}

/// What a `wait` step waits for: a length of time (`wait: 200ms`), or a background job's runs
/// (`wait: {job: refresh, runs: 5}`; without `runs`, until the job has run all its `times`).
public enum WaitCondition: Sendable, Hashable {
    case time(WrittenDuration)
    case job(String, runs: Int?)

    init(from container: KeyedDecodingContainer<StepKey>) throws {
        if (try? container.decode(WrittenDuration.self, "wait")) != nil, let duration = try container.pauseIfPresent("wait") {
            self = .time(duration)
            return
        }
        guard let condition = try? container.nestedContainer(keyedBy: StepKey.self, forKey: StepKey("wait")) else {
            throw container.failure("wait", "wait takes a duration up to 24h (250ms, 2s) or {job: NAME, runs: N}")
        }
        try condition.rejectUnknownKeys(allowed: ["job", "runs"], in: "wait")
        let runs = try condition.countIfPresent("runs")
        self = .job(try condition.decode(String.self, "job"), runs: runs)
    }
}
