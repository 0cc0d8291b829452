/// What a snapshot restore put back.
public struct RestoreResult: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The group restored.
    public let group: String
    /// Items added back.
    public let restored: Int
    /// Items of the snapshot already in the store, left as they are.
    public let alreadyPresent: Int
    /// Who had created the items put back, with counts.
    public let creators: [String: Int]

    /// - Parameters: see the properties.
    public init(group: String, restored: Int, alreadyPresent: Int, creators: [String: Int]) {
        self.group = group
        self.restored = restored
        self.alreadyPresent = alreadyPresent
        self.creators = creators
    }

    /// `restored 7 items to group 'G' (1 already present)`.
    public var description: String {
        "restored \(restored) item\(restored == 1 ? "" : "s") to group '\(group)'"
            + (alreadyPresent > 0 ? " (\(alreadyPresent) already present, kept as they are)" : "")
    }
}
