import SharedKeychain

/// What one app lost in a hazard (items it had created, updates it had made, probes it had
/// written) and which apps caused it.
public struct AppLoss: Sendable, Hashable, Codable {
    /// The bundle ID of the app whose items were deleted.
    public var app: String
    /// How many it lost.
    public var lost: Int
    /// What it lost: `items`, `updates`, `probes`.
    public var unit: String
    /// The bundle IDs of the apps that caused it.
    public var causedBy: [String]

    /// - Parameters: see the properties.
    public init(app: String, lost: Int, unit: String = "items", causedBy: [String]) {
        self.app = app
        self.lost = lost
        self.unit = unit
        self.causedBy = causedBy
    }

    /// Per creator, the items of `before` missing from `after` (by primary key), all blamed on
    /// `causedBy`; apps that lost nothing are left out.
    static func losses(before: [StoredItem], after: [StoredItem], causedBy: String) -> [AppLoss] {
        let remaining = Set(after.map(\.primaryKey))
        let gone = before.filter { !remaining.contains($0.primaryKey) }
        return MitigatedStore.count(gone).sorted { $0.key < $1.key }
            .map { AppLoss(app: $0.key, lost: $0.value, causedBy: [causedBy]) }
    }

    /// Adds `more` into `losses`, summing losses of one app, unit and cause.
    static func merge(_ more: [AppLoss], into losses: inout [AppLoss]) {
        for loss in more {
            if let index = losses.firstIndex(where: { $0.app == loss.app && $0.unit == loss.unit && $0.causedBy == loss.causedBy }) {
                losses[index].lost += loss.lost
            } else {
                losses.append(loss)
            }
        }
    }
}
