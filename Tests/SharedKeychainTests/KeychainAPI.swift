import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

/// The calls the keychain conformance suite makes, so it runs through every API: the Swift
/// `Keychain`, and Apple's SecItem functions (``SecItemKeychain``).
protocol KeychainAPI: Sendable {
    var app: AppIdentity { get }
    var store: any ItemStore { get }
    @discardableResult func add(_ new: NewItem) throws(KeychainError) -> KeychainItem
    func copyMatching(_ query: KeychainQuery, limit: MatchLimit) throws(KeychainError) -> [KeychainItem]
    func copyAll(_ query: KeychainQuery, limit: MatchLimit) throws(KeychainError) -> [KeychainItem]
    func first(_ query: KeychainQuery) throws(KeychainError) -> KeychainItem
    @discardableResult func update(_ query: KeychainQuery, with change: ItemChange) throws(KeychainError) -> Int
    @discardableResult func delete(_ query: KeychainQuery) throws(KeychainError) -> Int
    func copyMatching(_ query: KeychainQuery, limit: MatchLimit, returningData: Bool, authenticationUI: AuthenticationUI) throws(KeychainError)
        -> [KeychainItem]
    @discardableResult func update(_ query: KeychainQuery, with change: ItemChange, authenticationUI: AuthenticationUI) throws(KeychainError) -> Int
}

extension KeychainAPI {
    func copyMatching(_ query: KeychainQuery) throws(KeychainError) -> [KeychainItem] {
        try copyMatching(query, limit: .one)
    }

    func copyAll(_ query: KeychainQuery) throws(KeychainError) -> [KeychainItem] {
        try copyAll(query, limit: .all)
    }
}

extension Keychain: KeychainAPI {
    func copyAll(_ query: KeychainQuery, limit: MatchLimit) throws(KeychainError) -> [KeychainItem] {
        try copyAll(query, limit: limit, returningData: false)
    }
}

/// Which API a conformance test goes through.
enum API: String, CaseIterable, Sendable {
    case swift
    case secItem

    /// A client acting as `app` on `store`; with `authentication`, on `store` as a device
    /// answering so sees it.
    func client(app: AppIdentity, store: any ItemStore, authentication: AuthenticationProvider? = nil) -> any KeychainAPI {
        let keychain = Keychain(app: app, store: authentication.map { AnsweringStore(base: store, userAuthentication: $0) } ?? store)
        switch self {
        case .swift: return keychain
        case .secItem: return SecItemKeychain(context: SecItemContext(keychain))
        }
    }
}

/// A backend and an API: every backend through the Swift API, and memory and the keyring (the
/// CLI's layout) through SecItem.
struct Target: Sendable, CustomTestStringConvertible {
    let backend: TestBackend
    let api: API

    static let all: [Target] =
        TestBackend.allCases.map { Target(backend: $0, api: .swift) }
        + TestBackend.memoryAndKeyring.map { Target(backend: $0, api: .secItem) }

    var testDescription: String { "\(backend.rawValue) via \(api.rawValue)" }
}

/// The keychain as iOS code reaches it: every call is a SecItem dictionary, every answer an
/// OSStatus and a `CFTypeRef`, turned back into the conformance suite's types. Counts come from
/// a SecItemCopyMatching made just before (SecItem returns none).
struct SecItemKeychain: KeychainAPI {
    let context: SecItemContext
    var app: AppIdentity { context.keychain.app }
    var store: any ItemStore { context.keychain.store }

    func add(_ new: NewItem) throws(KeychainError) -> KeychainItem {
        var attributes: [String: Any] = [
            kSecClass as String: new.internet == nil ? kSecClassGenericPassword : kSecClassInternetPassword,
            kSecAttrAccount as String: Self.value(new.account, isData: new.accountIsData), kSecValueData as String: new.data,
            kSecAttrAccessible as String: new.accessibility.secValue,
            kSecReturnAttributes as String: kCFBooleanTrue!, kSecReturnData as String: true,
        ]
        if let internet = new.internet {
            Self.put(InternetFields(internet), into: &attributes)
        } else {
            attributes[kSecAttrService as String] = Self.value(new.service, isData: new.serviceIsData)
        }
        if let flags = new.accessControl {
            attributes[kSecAttrAccessible as String] = nil
            attributes[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
                nil, new.accessibility.secValue, flags, nil)
        }
        attributes[kSecAttrAccessGroup as String] = new.group
        attributes[kSecAttrGeneric as String] = new.generic
        attributes[kSecAttrType as String] = new.type
        attributes[kSecAttrCreator as String] = new.creator
        attributes[kSecAttrLabel as String] = new.label
        attributes[kSecAttrComment as String] = new.comment
        attributes[kSecAttrDescription as String] = new.itemDescription
        if new.synchronizable { attributes[kSecAttrSynchronizable as String] = kCFBooleanTrue }
        var result: CFTypeRef?
        let status = SecItemContext.with(context) { SecItemAdd(attributes as CFDictionary, &result) }
        try check(status, new.group, "account '\(new.account)'")
        guard let values = result as? [String: Any] else { throw .invalidParameter("SecItemAdd returned no attributes") }
        return try Self.item(values)
    }

    func copyMatching(_ query: KeychainQuery, limit: MatchLimit) throws(KeychainError) -> [KeychainItem] {
        try copyMatching(query, limit: limit, returningData: true, authenticationUI: .allow)
    }

    func copyMatching(_ query: KeychainQuery, limit: MatchLimit, returningData: Bool, authenticationUI: AuthenticationUI) throws(KeychainError)
        -> [KeychainItem]
    {
        var dictionary = Self.dictionary(query, authenticationUI)
        dictionary[kSecReturnAttributes as String] = true
        dictionary[kSecReturnData as String] = returningData
        switch limit {
        case .one: dictionary[kSecMatchLimit as String] = kSecMatchLimitOne
        case .all: dictionary[kSecMatchLimit as String] = kSecMatchLimitAll
        case .count(let count): dictionary[kSecMatchLimit as String] = count
        }
        var result: CFTypeRef?
        let status = SecItemContext.with(context) { SecItemCopyMatching(dictionary as CFDictionary, &result) }
        try check(status, query.group, query.description)
        if limit == .one {
            guard let values = result as? [String: Any] else { throw .invalidParameter("no dictionary for kSecMatchLimitOne") }
            return [try Self.item(values)]
        }
        guard let array = result as? [[String: Any]] else { throw .invalidParameter("no array for a match limit above one") }
        var items: [KeychainItem] = []
        for values in array { items.append(try Self.item(values)) }
        return items
    }

    func copyAll(_ query: KeychainQuery, limit: MatchLimit) throws(KeychainError) -> [KeychainItem] {
        do {
            return try copyMatching(query, limit: limit, returningData: false, authenticationUI: .allow)
        } catch where error.status == .itemNotFound {
            return []
        }
    }

    func first(_ query: KeychainQuery) throws(KeychainError) -> KeychainItem {
        try copyMatching(query, limit: .one)[0]
    }

    func update(_ query: KeychainQuery, with change: ItemChange) throws(KeychainError) -> Int {
        try update(query, with: change, authenticationUI: .allow)
    }

    func update(_ query: KeychainQuery, with change: ItemChange, authenticationUI: AuthenticationUI) throws(KeychainError) -> Int {
        precondition(change.ifVersion == nil, "SecItemUpdate has no compare-and-swap")
        var attributes: [String: Any] = [:]
        attributes[kSecAttrAccount as String] = change.account.map { Self.value($0, isData: change.accountIsData) }
        attributes[kSecAttrService as String] = change.service.map { Self.value($0, isData: change.serviceIsData) }
        Self.put(change.internet, into: &attributes)
        attributes[kSecAttrGeneric as String] = change.generic
        attributes[kSecAttrType as String] = change.type
        attributes[kSecAttrCreator as String] = change.creator
        attributes[kSecAttrLabel as String] = change.label
        attributes[kSecAttrComment as String] = change.comment
        attributes[kSecAttrDescription as String] = change.itemDescription
        attributes[kSecAttrAccessible as String] = change.accessibility?.secValue
        attributes[kSecAttrSynchronizable as String] = change.synchronizable
        attributes[kSecValueData as String] = change.data
        let count = try count(query, authenticationUI == .skip ? .skip : .allow)
        let status = SecItemContext.with(context) {
            SecItemUpdate(Self.dictionary(query, authenticationUI) as CFDictionary, attributes as CFDictionary)
        }
        try check(status, query.group, query.description)
        return count
    }

    /// How many items `query` matches, their attributes only (which never asks the user).
    private func count(_ query: KeychainQuery, _ authenticationUI: AuthenticationUI = .allow) throws(KeychainError) -> Int {
        do {
            return try copyMatching(query, limit: .all, returningData: false, authenticationUI: authenticationUI).count
        } catch where error.status == .itemNotFound {
            return 0
        }
    }

    func delete(_ query: KeychainQuery) throws(KeychainError) -> Int {
        let count = try count(query)
        let status = SecItemContext.with(context) { SecItemDelete(Self.dictionary(query) as CFDictionary) }
        try check(status, query.group, query.description)
        return count
    }

    // MARK: Translation

    /// The internet attributes `fields` names, as SecItem keys.
    static func put(_ fields: InternetFields, into dictionary: inout [String: Any]) {
        dictionary[kSecAttrServer as String] = fields.server
        dictionary[kSecAttrSecurityDomain as String] = fields.securityDomain
        dictionary[kSecAttrProtocol as String] = fields.protocol
        dictionary[kSecAttrAuthenticationType as String] = fields.authenticationType
        dictionary[kSecAttrPort as String] = fields.port
        dictionary[kSecAttrPath as String] = fields.path
    }

    /// An account or service in storage form as SecItem code gives it: Data when asked, or
    /// when the bytes are no UTF-8 text; otherwise the text.
    static func value(_ key: String, isData: Bool) -> Any {
        let bytes = AttributeBytes.bytes(of: key)
        guard !isData, let text = String(validating: bytes, as: UTF8.self) else { return bytes }
        return text
    }

    static func dictionary(_ query: KeychainQuery, _ authenticationUI: AuthenticationUI = .allow) -> [String: Any] {
        let internet = query.filters.itemClass == .internetPassword
        var dictionary: [String: Any] = [kSecClass as String: internet ? kSecClassInternetPassword : kSecClassGenericPassword]
        dictionary[kSecAttrAccessGroup as String] = query.group
        dictionary[kSecAttrAccount as String] = query.account.map { value($0, isData: false) }
        dictionary[kSecAttrService as String] = query.service.map { value($0, isData: false) }
        put(query.filters.internet, into: &dictionary)
        switch authenticationUI {
        case .allow: break
        case .fail: dictionary[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
        case .skip: dictionary[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
        }
        dictionary[kSecAttrGeneric as String] = query.generic
        dictionary[kSecAttrType as String] = query.type
        dictionary[kSecAttrCreator as String] = query.filters.creator
        dictionary[kSecAttrLabel as String] = query.filters.label
        dictionary[kSecAttrComment as String] = query.filters.comment
        dictionary[kSecAttrDescription as String] = query.filters.itemDescription
        dictionary[kSecAttrAccessible as String] = query.filters.accessibility?.secValue
        dictionary[kSecAttrSynchronizable as String] = query.filters.synchronizable.map { $0 as Any } ?? kSecAttrSynchronizableAny
        return dictionary
    }

    /// The status as the conformance suite's error (the message is the status's; SecItem
    /// returns no more).
    func check(_ status: OSStatus, _ group: String?, _ what: String) throws(KeychainError) {
        guard status != errSecSuccess else { return }
        switch KeychainStatus(rawValue: status) {
        case .missingEntitlement: throw .missingEntitlement(group: group ?? "", app: app.bundleID, entitled: app.accessGroupNames)
        case .itemNotFound: throw .itemNotFound(query: what)
        case .duplicateItem: throw .duplicateItem(PrimaryKey(group: group ?? "", account: "", service: ""))
        case .param: throw .invalidParameter((SecCopyErrorMessageString(status, nil) as String?) ?? "")
        case .authFailed, .userCanceled, .interactionNotAllowed:
            throw .authentication(KeychainStatus(rawValue: status) ?? .authFailed, (SecCopyErrorMessageString(status, nil) as String?) ?? "")
        default: throw .storage(.backend(domain: "OSStatus", code: Int(status), message: (SecCopyErrorMessageString(status, nil) as String?) ?? ""))
        }
    }

    /// An account or service from a result, in storage form, and whether it came as Data.
    static func attribute(_ value: Any?) -> (key: String, isData: Bool)? {
        if let text = value as? String { return (AttributeValue.string(text).key, false) }
        if let bytes = value as? Data { return (AttributeValue.data(bytes).key, true) }
        return nil
    }

    static func item(_ values: [String: Any]) throws(KeychainError) -> KeychainItem {
        let isInternet = values[kSecClass as String] as? String == kSecClassInternetPassword as String
        var internet: InternetAttributes?
        if isInternet {
            internet = InternetAttributes(
                securityDomain: values[kSecAttrSecurityDomain as String] as? String ?? "?", server: values[kSecAttrServer as String] as? String ?? "?",
                protocol: values[kSecAttrProtocol as String] as? String ?? "?",
                authenticationType: values[kSecAttrAuthenticationType as String] as? String ?? "?",
                port: (values[kSecAttrPort as String] as? NSNumber)?.intValue ?? -1, path: values[kSecAttrPath as String] as? String ?? "?")
        }
        guard let group = values[kSecAttrAccessGroup as String] as? String, let account = attribute(values[kSecAttrAccount as String]),
            let service = isInternet ? ("", false) : attribute(values[kSecAttrService as String]),
            let created = values[kSecAttrCreationDate as String] as? Date,
            let modified = values[kSecAttrModificationDate as String] as? Date,
            let accessible = (values[kSecAttrAccessible as String] as? String).flatMap(Accessibility.init(secValue:))
        else { throw .invalidParameter("a SecItem result lacks attributes: \(values.keys.sorted())") }
        let control = values[kSecAttrAccessControl as String] as? SecAccessControl
        // Asked for without kSecReturnData: none (the Swift API returns it anyway).
        let data = values[kSecValueData as String] as? Data ?? Data()
        return KeychainItem(
            group: group, account: account.key, service: service.key, generic: values[kSecAttrGeneric as String] as? Data,
            type: (values[kSecAttrType as String] as? NSNumber)?.uint32Value, label: values[kSecAttrLabel as String] as? String,
            comment: values[kSecAttrComment as String] as? String, itemDescription: values[kSecAttrDescription as String] as? String,
            creator: (values[kSecAttrCreator as String] as? NSNumber)?.uint32Value, creationDate: created, modificationDate: modified, data: data,
            accessibility: accessible, synchronizable: (values[kSecAttrSynchronizable as String] as? NSNumber)?.boolValue ?? false,
            accountIsData: account.isData, serviceIsData: service.isData, internet: internet,
            accessControl: control?.flags)
    }
}

