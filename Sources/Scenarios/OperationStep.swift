/// `- app: com.contoso.mail` / `do: token signin` / `user: alice@contoso.com`: one app performs
/// one operation; `expect` makes it an assertion; `delay` (inside `concurrent`) starts it later.
public struct OperationStep: Sendable, Hashable, Decodable {
    /// The bundle ID of the app, as in the suite.
    public var app: String
    public var operation: ScenarioOperation
    public var expect: ExpectedOutcome?
    /// How long to wait before starting, counted from the start of its `concurrent` block.
    public var delay: ScenarioDuration?

    /// - Parameters: see the properties.
    public init(app: String, operation: ScenarioOperation, expect: ExpectedOutcome? = nil, delay: ScenarioDuration? = nil) {
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
