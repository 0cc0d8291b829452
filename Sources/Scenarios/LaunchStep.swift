import SharedKeychain

/// `- launch: {app: com.contoso.mail, prewarm: true, wait-for-protected-data: true}` with an
/// optional `expect`: the app starts and reads its accounts (MSAL's allAccounts), as at every
/// launch. `prewarm: true` is iOS launching it ahead of use, which it also does while the device
/// is locked and before the first unlock after a reboot (write `device: reboot` first); without
/// it the user opens the app, which needs an unlocked device. `wait-for-protected-data: true` is
/// the fix for the prewarm-logout hazard: when `isProtectedDataAvailable` is false the app reads
/// nothing until the device posts `protectedDataDidBecomeAvailable` (a later `device: unlock`
/// step), and `expect` judges that read.
public struct LaunchStep: Sendable, Hashable {
    /// The bundle ID of the app, as in the suite.
    public var app: String
    /// Launched by iOS ahead of use, not by the user.
    public var prewarm: Bool
    /// Reads only once protected data is available.
    public var waitsForProtectedData: Bool
    /// What the launch's read should give.
    public var expect: ExpectedOutcome?

    /// - Parameters: see the properties.
    public init(app: String, prewarm: Bool = false, waitsForProtectedData: Bool = false, expect: ExpectedOutcome? = nil) {
        self.app = app
        self.prewarm = prewarm
        self.waitsForProtectedData = waitsForProtectedData
        self.expect = expect
    }

    /// The read the app makes at launch, as an operation step.
    public var read: OperationStep {
        OperationStep(app: app, operation: ScenarioOperation(kind: .tokenAccounts), expect: expect)
    }

    /// Reads `launch:` (a mapping of `app`, `prewarm`, `wait-for-protected-data`) and `expect`.
    init(from container: KeyedDecodingContainer<StepKey>) throws {
        try container.rejectUnknownKeys(allowed: ["launch", "expect"], in: "a launch step")
        guard let launch = try? container.nestedContainer(keyedBy: StepKey.self, forKey: StepKey("launch")) else {
            throw container.failure("launch", "launch takes {app: BUNDLE_ID, prewarm: true|false, wait-for-protected-data: true|false}")
        }
        try launch.rejectUnknownKeys(allowed: ["app", "prewarm", "wait-for-protected-data"], in: "launch")
        self.init(
            app: try launch.decode(String.self, "app"),
            prewarm: try launch.decodeIfPresent(Bool.self, "prewarm") ?? false,
            waitsForProtectedData: try launch.decodeIfPresent(Bool.self, "wait-for-protected-data") ?? false,
            expect: try container.decodeIfPresent(ExpectedOutcome.self, "expect"))
    }

    /// `launch com.contoso.mail (prewarmed)`: what the timeline shows.
    var description: String {
        "launch" + (prewarm ? " (prewarmed)" : "") + (waitsForProtectedData ? " waiting for protected data" : "")
    }
}
