import Foundation
import SharedKeychain

/// How an item appears in `--json` output. `data` is present only when asked for: listings
/// never carry secrets.
struct ItemJSON: Encodable {
    /// `generic`, `internet` or `key`.
    let `class`: String
    let group: String
    /// The account as text (bytes that are no UTF-8 repaired with U+FFFD); `accountHex` holds
    /// the bytes of an account given as Data.
    let account: String
    let accountHex: String?
    /// Empty for an internet password.
    let service: String
    let serviceHex: String?
    /// An internet password's attributes.
    let server: String?
    let `protocol`: String?
    let port: Int?
    let path: String?
    let securityDomain: String?
    let authenticationType: String?
    /// A key's attributes (`kSecClassKey`, MSAL's broker key): the tag and label as base64,
    /// `keyClass` as Apple's value ("2" symmetric).
    let key: KeyAttributes?
    /// A key's application tag as text, when it is UTF-8.
    let keyTag: String?
    /// The access control's flags by Apple's names (`userPresence`, ...), when it has one.
    let accessControl: [String]?
    /// The generic attribute as text when it is UTF-8; `genericBase64` always.
    let generic: String?
    let genericBase64: String?
    /// `kSecAttrType` and `kSecAttrCreator`: the caller's numbers, absent unless set.
    let type: UInt32?
    let label: String?
    let comment: String?
    let description: String?
    let creator: UInt32?
    /// Who added and last modified the item, as the emulator recorded it; absent when unknown.
    let emulatorProvenance: ProvenanceJSON?
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
        `class` = item.itemClass.rawValue
        group = item.group
        account = AttributeBytes.text(of: item.account)
        accountHex = item.accountIsData ? AttributeBytes.hex(AttributeBytes.bytes(of: item.account)) : nil
        service = AttributeBytes.text(of: item.service)
        serviceHex = item.serviceIsData ? AttributeBytes.hex(AttributeBytes.bytes(of: item.service)) : nil
        server = item.internet?.server
        self.protocol = item.internet?.protocol
        port = item.internet?.port
        path = item.internet?.path
        securityDomain = item.internet?.securityDomain
        authenticationType = item.internet?.authenticationType
        key = item.key
        keyTag = item.key.flatMap { String(data: $0.applicationTag, encoding: .utf8) }
        accessControl = item.accessControl.map(AccessControlArgument.names(of:))
        generic = item.generic.flatMap { String(data: $0, encoding: .utf8) }
        genericBase64 = item.generic?.base64EncodedString()
        type = item.type
        label = item.label
        comment = item.comment
        description = item.itemDescription
        creator = item.creator
        emulatorProvenance = item.provenance.map(ProvenanceJSON.init)
        synchronizable = item.synchronizable
        created = item.creationDate
        modified = item.modificationDate
        version = item.version
        accessible = item.accessibility.rawValue
        data = includeData ? String(data: item.data, encoding: .utf8) : nil
        dataBase64 = includeData ? item.data.base64EncodedString() : nil
    }
}

/// The emulator's provenance of an item in `--json` output, with the note that says whose
/// record it is.
struct ProvenanceJSON: Encodable {
    let addedBy: String?
    let modifiedBy: String?
    /// ``Provenance/note``: no device keeps this.
    let note: String

    init(_ provenance: Provenance) {
        addedBy = provenance.addedBy
        modifiedBy = provenance.modifiedBy
        note = Provenance.note
    }
}

extension ItemJSON {
    /// An account or service for people: its text (escaped and cut, ``DisplayText``), or `0x`
    /// and hex when given as Data.
    static func shown(_ key: String, isData: Bool) -> String {
        DisplayText(isData ? "0x" + AttributeBytes.hex(AttributeBytes.bytes(of: key)) : AttributeBytes.text(of: key)).description
    }

    /// `account 'alice', service 'rt'`, or `internet password for account 'alice', server
    /// 'example.com', ...`; `(synchronizable)` after a synchronizable item's.
    static func name(of item: KeychainItem) -> String {
        if let key = item.key { return key.description + (item.synchronizable ? " (synchronizable)" : "") }
        let account = shown(item.account, isData: item.accountIsData)
        var name = item.internet.map { "internet password for account '\(account)', \($0)" }
            ?? "account '\(account)', service '\(shown(item.service, isData: item.serviceIsData))'"
        if item.synchronizable { name += " (synchronizable)" }
        return name
    }

    /// The header of the column of who added an item: the emulator's record, and says so.
    static let addedByHeader = "ADDED BY (EMULATOR)"

    /// Items as `item list` prints them: attributes only, and a line saying that the ADDED BY
    /// column is the emulator's record. An internet password's SERVICE column shows its server,
    /// a key's its tag.
    static func table(_ items: [KeychainItem]) -> String {
        let rows = items.map { item in
            [item.group, shown(item.account, isData: item.accountIsData),
             item.key.map { "key \(DisplayText(String(decoding: $0.applicationTag, as: UTF8.self)))" }
                ?? item.internet.map { "\($0.protocol)://\($0.server)\($0.port == 0 ? "" : ":\($0.port)")\($0.path)" }
                ?? shown(item.service, isData: item.serviceIsData),
             item.type.map(String.init) ?? "-", item.accessibility.rawValue,
             item.creator.map(String.init) ?? "-", item.provenance?.addedBy ?? "-", item.modificationDate.formatted(.iso8601)]
        }
        let table = TextTable(header: ["GROUP", "ACCOUNT", "SERVICE", "TYPE", "ACCESSIBLE", "CREATOR", addedByHeader, "MODIFIED"], rows: rows).rendered
        return items.isEmpty ? table : table + "\(addedByHeader): \(Provenance.note)\n"
    }
}
