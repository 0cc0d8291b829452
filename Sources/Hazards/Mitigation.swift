/// A protection that can be switched on for one access group. None is on by default, so the
/// keychain core stays faithful to Apple's behaviour unless a group opts in.
public enum Mitigation: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Every delete in the group is journaled: app, operation, query, item count, time.
    case audit
    /// An app may delete only items it created, unless it is privileged for the group.
    case guardedDelete = "guarded-delete"

    /// The raw value (`guarded-delete`).
    public var description: String { rawValue }
}
