import Foundation

/// The attributes an update sets; `nil` leaves an attribute as it is.
public struct ItemChange: Sendable, Hashable {
    public var account: String?
    public var service: String?
    public var generic: Data?
    public var type: Int?
    public var label: String?
    public var data: Data?

    public init(
        account: String? = nil,
        service: String? = nil,
        generic: Data? = nil,
        type: Int? = nil,
        label: String? = nil,
        data: Data? = nil
    ) {
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.label = label
        self.data = data
    }

    /// True when the change sets nothing (Keychain Services calls that errSecParam).
    public var isEmpty: Bool {
        account == nil && service == nil && generic == nil && type == nil && label == nil && data == nil
    }

    /// True when the change can move an item to another primary key.
    public var touchesPrimaryKey: Bool { account != nil || service != nil }

    /// `item` with the change applied and its modification date set to `date`.
    public func applied(to item: StoredItem, at date: Date) -> StoredItem {
        var changed = item
        if let account { changed.account = account }
        if let service { changed.service = service }
        if let generic { changed.generic = generic }
        if let type { changed.type = type }
        if let label { changed.label = label }
        if let data { changed.data = data }
        changed.modificationDate = date
        return changed
    }
}
