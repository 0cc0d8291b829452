import Foundation

/// One destructive operation in an audited group, as the journal keeps it. Never holds item
/// data: the query is described by its attributes, and counts say what it touched.
public struct AuditEntry: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened to the operation.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The store deleted the items.
        case deleted
        /// Guarded delete refused it; nothing was deleted.
        case refused
        /// Items were put back from a snapshot.
        case restored
        /// A snapshot of the group was taken (it holds the group's secrets).
        case taken
        /// The journal was read.
        case viewed
    }

    /// When the operation ran.
    public var time: Date
    /// The bundle ID of the app that asked, or `device-owner` for `--admin`.
    public var app: String
    /// `delete`, `snapshot`, `restore` or `audit`.
    public var operation: String
    /// The audited group.
    public var group: String
    /// The query, as attributes (`service 'x' in groups A, B`), never data.
    public var query: String
    /// How many items of the group the operation matched.
    public var itemCount: Int
    /// Of those, how many each creator had created (who lost what).
    public var creators: [String: Int]
    /// Whether it went through.
    public var outcome: Outcome
    /// True when the app was not installed on the device but declared ad hoc (`--team`,
    /// `--entitlements`): nothing vouches for its bundle ID. Absent (nil) otherwise.
    public var adHoc: Bool?

    /// - Parameters: see the properties.
    public init(
        time: Date, app: String, operation: String, group: String, query: String, itemCount: Int, creators: [String: Int],
        outcome: Outcome, adHoc: Bool = false
    ) {
        self.time = time
        self.app = app
        self.operation = operation
        self.group = group
        self.query = query
        self.itemCount = itemCount
        self.creators = creators
        self.outcome = outcome
        self.adHoc = adHoc ? true : nil
    }

    /// `2026-11-22T04:50:02Z com.contoso.calendar delete (refused) in G: 7 items (created by com.contoso.mail 7), query: ...`.
    public var description: String {
        let owners = creators.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(time.formatted(.iso8601)) \(app)\(adHoc == true ? " (ad-hoc)" : "") \(operation) (\(outcome.rawValue)) in \(group): \(itemCount) item\(itemCount == 1 ? "" : "s")"
            + (owners.isEmpty ? "" : " (created by \(owners))") + ", query: \(query)"
    }
}
