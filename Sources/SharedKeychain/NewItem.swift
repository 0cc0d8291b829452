import Foundation
import KeychainStorage

/// The attributes of an item to add (`SecItemAdd`'s dictionary, for the generic-password class).
public struct NewItem: Sendable, Hashable {
    public var account: String
    public var service: String
    /// The full access group; nil puts the item in the app's first group.
    public var group: String?
    public var generic: Data?
    public var type: Int?
    public var label: String?
    public var comment: String?
    public var itemDescription: String?
    /// Who created it; nil records the adding app's bundle ID.
    public var creator: String?
    public var data: Data
    /// `kSecAttrAccessible`; Apple's default is `whenUnlocked`.
    public var accessibility: Accessibility
    /// `kSecAttrSynchronizable`: kept and matched; nothing syncs on Linux.
    public var synchronizable: Bool

    public init(
        account: String,
        service: String,
        group: String? = nil,
        generic: Data? = nil,
        type: Int? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: String? = nil,
        data: Data,
        accessibility: Accessibility = .whenUnlocked,
        synchronizable: Bool = false
    ) {
        self.account = account
        self.service = service
        self.group = group
        self.generic = generic
        self.type = type
        self.label = label
        self.comment = comment
        self.itemDescription = itemDescription
        self.creator = creator
        self.data = data
        self.accessibility = accessibility
        self.synchronizable = synchronizable
    }
}
