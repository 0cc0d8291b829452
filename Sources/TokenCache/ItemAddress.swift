/// The account and service of an item: its primary key within the group.
struct ItemAddress: Sendable, Hashable {
    var account: String
    var service: String
}
