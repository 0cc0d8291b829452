/// `- background: refresh` / `app: ...` / `do: token acquire` / `every: 100ms` / `times: 20`:
/// an operation an app repeats on its own (its own thread, in its own process) while the
/// following steps run, until it has run `times` times or a `stop` step ends it.
public struct BackgroundJob: Sendable, Hashable, Codable {
    /// The job's name, unique in the scenario, for `wait` and `stop`.
    public var name: String
    /// The bundle ID of the app that runs it.
    public var app: String
    public var operation: ScenarioOperation
    /// The pause after each run; zero runs back to back.
    public var every: ScenarioDuration
    /// How many runs; nil: until stopped.
    public var times: Int?

    /// - Parameters: see the properties.
    public init(name: String, app: String, operation: ScenarioOperation, every: ScenarioDuration = ScenarioDuration(seconds: 0), times: Int? = nil) {
        self.name = name
        self.app = app
        self.operation = operation
        self.every = every
        self.times = times
    }

    static let ownKeys = ["background", "app", "do", "every", "times"]

    init(from container: KeyedDecodingContainer<StepKey>) throws {
        operation = try ScenarioOperation(from: container, alongside: Self.ownKeys, in: "a background step")
        name = try container.decode(String.self, "background")
        app = try container.decode(String.self, "app")
        every = try container.pauseIfPresent("every") ?? ScenarioDuration(seconds: 0)
        times = try container.countIfPresent("times")
        if name.trimmingCharacters(in: .whitespaces).isEmpty { throw container.failure("background", "a job needs a name") }
    }
}
