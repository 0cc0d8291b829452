/// What the group holds after a token run, for the consistency check: per user, the items only
/// that user's app writes and the client's account-metadata entry; per app, when it was at work.
public struct TokenAccountsAfterRun: Sendable, Hashable {
    /// This client's account-metadata entry for a user, as the check needs it.
    public enum MetadataEntry: Sendable, Hashable {
        /// `signed_in`.
        case signedIn
        /// `signed_out`.
        case signedOut
        /// No entry (or `unknown`, which counts as none).
        case missing
    }

    /// One user's state.
    public struct UserState: Sendable, Hashable {
        /// The account record and a usable refresh token are in the group.
        public var hasTokens: Bool
        public var metadata: MetadataEntry

        public init(hasTokens: Bool, metadata: MetadataEntry) {
            self.hasTokens = hasTokens
            self.metadata = metadata
        }

        /// A sign-in that left all it writes: its tokens, and `signed_in`.
        var keptSignIn: Bool { hasTokens && metadata == .signedIn }
    }

    /// By username; a user without an account record is absent.
    public var states: [String: UserState]
    /// Monotonic nanoseconds from each app's first call's start to its last call's end.
    public var activity: [Int: ClosedRange<UInt64>]

    public init(states: [String: UserState], activity: [Int: ClosedRange<UInt64>]) {
        self.states = states
        self.activity = activity
    }

    /// Whether an app other than `app` made calls while `entry` ran: the only way another app's
    /// read-modify-write of the shared account-metadata item can have overwritten the entry
    /// `entry` wrote (an approximation from above: any call, not only those that write it).
    func anotherAppWorked(besides app: Int, during entry: JournalEntry) -> Bool {
        activity.contains { other, window in other != app && window.lowerBound < entry.end && window.upperBound > entry.start }
    }
}
