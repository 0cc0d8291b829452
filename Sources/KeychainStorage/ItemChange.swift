import Foundation

/// The attributes an update sets; `nil` leaves an attribute as it is.
///
/// ``ifVersion`` is not a change but a precondition: with it, the update is a compare-and-swap
/// that applies only when every matched item is still at that ``StoredItem/version``; otherwise
/// nothing changes and it fails with ``StorageError/versionConflict(_:expected:found:)``.
/// Keychain Services has no such thing; it is the project's mitigation for lost updates.
public struct ItemChange: Sendable, Hashable {
    /// The new account, in its storage form (``AttributeBytes``).
    public var account: String?
    /// The new service, in its storage form.
    public var service: String?
    /// Whether the new ``account`` was given as `Data`.
    public var accountIsData: Bool
    /// Whether the new ``service`` was given as `Data`.
    public var serviceIsData: Bool
    /// Internet-password attributes to set (on internet passwords only; each a new primary key).
    public var internet: InternetFields
    /// A new access control (its flags); the protection class comes as ``accessibility``.
    public var accessControl: AccessControlFlags?
    public var generic: Data?
    /// `kSecAttrType`, a FourCharCode.
    public var type: UInt32?
    public var label: String?
    public var comment: String?
    public var itemDescription: String?
    /// `kSecAttrCreator`, a FourCharCode.
    public var creator: UInt32?
    /// A new class: the item moves to where that class is kept, and the device's lock applies.
    public var accessibility: Accessibility?
    public var synchronizable: Bool?
    public var data: Data?
    /// Apply only to items at this version (compare-and-swap); nil: unconditionally.
    public var ifVersion: UInt64?
    /// The bundle ID of the app making the change, for the emulator's ``Provenance``: not a
    /// change an app asks for (the keychain core sets it), so it alone makes no update.
    public var modifiedBy: String?

    public init(
        account: String? = nil,
        service: String? = nil,
        generic: Data? = nil,
        type: UInt32? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: UInt32? = nil,
        accessibility: Accessibility? = nil,
        synchronizable: Bool? = nil,
        data: Data? = nil,
        ifVersion: UInt64? = nil,
        accountIsData: Bool = false,
        serviceIsData: Bool = false,
        internet: InternetFields = InternetFields(),
        accessControl: AccessControlFlags? = nil
    ) {
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.label = label
        self.comment = comment
        self.itemDescription = itemDescription
        self.creator = creator
        self.accessibility = accessibility
        self.synchronizable = synchronizable
        self.data = data
        self.ifVersion = ifVersion
        self.accountIsData = accountIsData
        self.serviceIsData = serviceIsData
        self.internet = internet
        self.accessControl = accessControl
    }

    /// True when the change sets nothing (Keychain Services calls that errSecParam); a
    /// precondition alone changes nothing.
    public var isEmpty: Bool {
        var unset = self
        unset.ifVersion = nil
        unset.modifiedBy = nil
        if unset.account == nil { unset.accountIsData = false }
        if unset.service == nil { unset.serviceIsData = false }
        return unset == ItemChange()
    }

    /// True when the change can move an item to another primary key.
    public var touchesPrimaryKey: Bool { account != nil || service != nil || synchronizable != nil || !internet.isEmpty }

    /// `item` with the change applied, its modification date set to `date` and its version
    /// one higher.
    public func applied(to item: StoredItem, at date: Date) -> StoredItem {
        var changed = item
        if let account {
            changed.account = account
            changed.accountIsData = accountIsData
        }
        if let service {
            changed.service = service
            changed.serviceIsData = serviceIsData
        }
        if let attributes = item.internet { changed.internet = internet.applied(to: attributes) }
        if let accessControl { changed.accessControl = accessControl }
        if let generic { changed.generic = generic }
        if let type { changed.type = type }
        if let label { changed.label = label }
        if let comment { changed.comment = comment }
        if let itemDescription { changed.itemDescription = itemDescription }
        if let creator { changed.creator = creator }
        if let accessibility { changed.accessibility = accessibility }
        if let synchronizable { changed.synchronizable = synchronizable }
        if let data { changed.data = data }
        if let modifiedBy {
            changed.provenance = Provenance(addedBy: item.provenance?.addedBy, modifiedBy: modifiedBy)
        }
        changed.modificationDate = date
        changed.version = item.version &+ 1
        return changed
    }
}

/// What an update does to the items it matched, worked out before anything is written, so a
/// backend can refuse a change that would give two items one primary key, or a compare-and-swap
/// whose item moved on, and change nothing.
public struct UpdatePlan: Sendable {
    /// Each matched item with its replacement, in the order they were matched.
    public let replacements: [(old: StoredItem, new: StoredItem)]

    /// - Parameter isTaken: whether an item outside `matched` already holds the key.
    public init(
        matched: [StoredItem],
        change: ItemChange,
        at date: Date,
        isTaken: (PrimaryKey) throws(StorageError) -> Bool
    ) throws(StorageError) {
        if let expected = change.ifVersion, let stale = matched.first(where: { $0.version != expected }) {
            throw .versionConflict(stale.primaryKey, expected: expected, found: stale.version)
        }
        let replacements = matched.map { (old: $0, new: change.applied(to: $0, at: date)) }
        if change.touchesPrimaryKey {
            let vacated = Set(matched.map(\.primaryKey))
            var claimed = Set<PrimaryKey>()
            for (_, new) in replacements {
                let key = new.primaryKey
                guard claimed.insert(key).inserted else { throw .duplicateItem(key) }
                if !vacated.contains(key), try isTaken(key) { throw .duplicateItem(key) }
            }
        }
        self.replacements = replacements
    }
}
