/// An acknowledged change, kept for the consistency check after the run.
public struct JournalEntry: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable {
        /// The owner wrote `version` to its key.
        case write
        /// The owner deleted its key (or found it absent).
        case delete
        /// Someone deleted the whole group.
        case wipe
        /// Token workload: the owner signed in its user number `key`.
        case signIn
        /// Token workload: the owner removed its user number `key` (or found it absent).
        case removeAccount
    }

    public var kind: Kind
    /// The owner's key index (its user's, in the token workload); unused for a wipe.
    public var key: Int
    public var version: Int
    /// Monotonic nanoseconds when the call started and when it returned.
    public var start: UInt64
    public var end: UInt64
}
