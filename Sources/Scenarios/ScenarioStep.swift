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
public enum ScenarioStep: Sendable, Hashable, Decodable {
    case operation(OperationStep)
    case concurrent([OperationStep])
    case background(BackgroundJob)
    case wait(WaitCondition)
    case stop(job: String, expect: ExpectedTally?)
    /// Moves the token clock of every app forward, so access tokens expire.
    case advanceClock(ScenarioDuration)
    /// Locks, unlocks or reboots the device, or kills, stops or resumes the keyring's daemon.
    case device(DeviceAction)

    static let kinds = ["do", "concurrent", "background", "wait", "stop", "advance-clock", "device"]

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
        } else if container.has("advance-clock") {
            try container.rejectUnknownKeys(allowed: ["advance-clock"], in: "an advance-clock step")
            self = .advanceClock(try container.decode(ScenarioDuration.self, "advance-clock"))
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a step needs one of \(Self.kinds.joined(separator: ", ")); found \(container.allKeys.map(\.stringValue).sorted().joined(separator: ", "))"))
        }
    }
}
