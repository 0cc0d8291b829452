/// An acknowledged change, kept for the consistency check after the run.
public struct JournalEntry: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable {
        /// The owner wrote `version` to its key.
        case write
        /// The owner deleted its key (or found it absent).
        case delete
        /// Someone deleted the whole group.
        case wipe
    }

    public var kind: Kind
    /// The owner's key index; unused for a wipe.
    public var key: Int
    public var version: Int
    /// Monotonic nanoseconds when the call started and when it returned.
    public var start: UInt64
    public var end: UInt64
}
