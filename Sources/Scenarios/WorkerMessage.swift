import Foundation

/// What the runner and an app process say to each other: one JSON object a line. The app
/// process says `ready` (or `failed`) once, then answers requests by id and reports each
/// background run as it happens.
enum WorkerMessage: Codable, Sendable {
    // Runner to app.
    case perform(id: Int, operation: ScenarioOperation)
    case start(job: BackgroundJob)
    case stop(id: Int, job: String)
    case advanceClock(id: Int, seconds: Double)
    // App to runner.
    case ready
    case failed(message: String)
    case result(id: Int, outcome: OperationOutcome)
    case jobRun(job: String, outcome: OperationOutcome)
    case done(id: Int)

    var line: String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        // Encoding plain value types cannot fail.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    init?(line: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let message = try? decoder.decode(WorkerMessage.self, from: Data(line.utf8)) else { return nil }
        self = message
    }
}
