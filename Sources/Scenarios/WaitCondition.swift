/// What a `wait` step waits for: a length of time (`wait: 200ms`), or a background job's runs
/// (`wait: {job: refresh, runs: 5}`; without `runs`, until the job has run all its `times`).
public enum WaitCondition: Sendable, Hashable {
    case time(ScenarioDuration)
    case job(String, runs: Int?)

    init(from container: KeyedDecodingContainer<StepKey>) throws {
        if (try? container.decode(ScenarioDuration.self, "wait")) != nil, let duration = try container.pauseIfPresent("wait") {
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
