import Foundation
import SharedKeychain

/// How an item appears in `--json` output. `data` is present only when asked for: listings
/// never carry secrets.
struct ItemJSON: Encodable {
    let group: String
    let account: String
    let service: String
    /// The generic attribute as text when it is UTF-8; `genericBase64` always.
    let generic: String?
    let genericBase64: String?
    let type: Int?
    let label: String?
    let comment: String?
    let description: String?
    let creator: String?
    /// `kSecAttrSynchronizable`.
    let synchronizable: Bool
    let created: Date
    let modified: Date
    /// The item's write count, for `item update --if-version`.
    let version: UInt64
    /// `kSecAttrAccessible` by Apple's name (`whenUnlocked`, `afterFirstUnlock`, ...).
    let accessible: String
    /// The data as text when it is UTF-8; `dataBase64` always (when data is included).
    let data: String?
    let dataBase64: String?

    init(_ item: KeychainItem, includeData: Bool) {
        group = item.group
        account = item.account
        service = item.service
        generic = item.generic.flatMap { String(data: $0, encoding: .utf8) }
        genericBase64 = item.generic?.base64EncodedString()
        type = item.type
        label = item.label
        comment = item.comment
        description = item.itemDescription
        creator = item.creator
        synchronizable = item.synchronizable
        created = item.creationDate
        modified = item.modificationDate
        version = item.version
        accessible = item.accessibility.rawValue
        data = includeData ? String(data: item.data, encoding: .utf8) : nil
        dataBase64 = includeData ? item.data.base64EncodedString() : nil
    }
}
