/// How a background job ended.
public struct JobSummary: Sendable, Hashable, Codable {
    public var name: String
    public var app: String
    public var operation: String
    public var tally: JobTally
}
