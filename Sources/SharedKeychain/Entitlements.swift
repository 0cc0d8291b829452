import Foundation

/// The part of an app's `entitlements.plist` that matters to the keychain: its
/// `keychain-access-groups` array, its `com.apple.security.application-groups` and its
/// `application-identifier`, entries in the order written.
///
/// Both an Xcode source file and a signed app's dump (`codesign -d --entitlements`) are read as
/// the device takes them: wildcard entries (`TEAM.*`, left by re-signing services) and
/// `com.apple.token` are kept, and a file with none of the three keys is an app signed without
/// keychain entitlements, which every keychain call refuses (see ``AppIdentity/hasKeychainEntitlement``).
public struct Entitlements: Sendable, Hashable {
    public static let keychainAccessGroupsKey = "keychain-access-groups"
    public static let applicationGroupsKey = "com.apple.security.application-groups"
    public static let applicationIdentifierKey = "application-identifier"

    /// The raw entries, `$(AppIdentifierPrefix)` not yet expanded.
    public let keychainAccessGroups: [String]
    /// The app groups, as written (`group.com.contoso.shared`).
    public let applicationGroups: [String]
    /// The signed app ID (`ABCDE12345.com.contoso.mail`), present in a signed app's dump; nil in
    /// an Xcode source file, where signing adds it.
    public let applicationIdentifier: String?

    /// - Parameters:
    ///   - keychainAccessGroups: the `keychain-access-groups` entries, as written.
    ///   - applicationGroups: the `com.apple.security.application-groups` entries, as written.
    ///   - applicationIdentifier: the signed `application-identifier`, if the file has one.
    public init(keychainAccessGroups: [String], applicationGroups: [String] = [], applicationIdentifier: String? = nil) {
        self.keychainAccessGroups = keychainAccessGroups
        self.applicationGroups = applicationGroups
        self.applicationIdentifier = applicationIdentifier
    }

    /// Whether these entitlements give the app any keychain access group: an app ID, a
    /// keychain group or an app group (signing adds the app ID to an Xcode file with groups).
    /// Without any, iOS answers every keychain call with -34018, "Client has neither
    /// application-identifier nor keychain-access-groups entitlements".
    public var grantsKeychainAccess: Bool {
        applicationIdentifier != nil || !keychainAccessGroups.isEmpty || !applicationGroups.isEmpty
    }

    /// Reads an XML or binary property list.
    public init(contentsOf url: URL) throws(EntitlementsError) {
        let data: Data
        do { data = try InputValidation.readDocument(at: url, field: "entitlements") } catch {
            throw .unreadable(file: url.path, reason: error.message)
        }
        try self.init(propertyList: data, source: url.path)
    }

    /// Parses property-list bytes; `source` names them in errors.
    public init(propertyList data: Data, source: String) throws(EntitlementsError) {
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw .unreadable(file: source, reason: "not a property list (\((error as NSError).localizedDescription))")
        }
        do { try InputValidation.checkShape(of: plist, field: "the property list") } catch {
            throw .unreadable(file: source, reason: error.message)
        }
        guard let root = plist as? [String: Any] else {
            throw .wrongType(file: source, key: "(root)", expected: "a dictionary", found: Self.typeName(plist))
        }
        // Any key may be missing, all of them too: a signed app's dump is taken as the device
        // takes it, and one without keychain entitlements fails at its first keychain call.
        self.keychainAccessGroups = try Self.strings(root, Self.keychainAccessGroupsKey, source: source)
        self.applicationGroups = try Self.strings(root, Self.applicationGroupsKey, source: source)
        self.applicationIdentifier = try Self.signedApplicationIdentifier(root, source: source)
    }

    /// The `application-identifier` string, `<TEAMID>.<bundle id>`; nil when absent.
    private static func signedApplicationIdentifier(_ root: [String: Any], source: String) throws(EntitlementsError) -> String? {
        let key = Self.applicationIdentifierKey
        guard let value = root[key] else { return nil }
        guard let identifier = value as? String else {
            throw .wrongType(file: source, key: key, expected: "a string", found: Self.typeName(value))
        }
        guard let dot = identifier.firstIndex(of: "."), (try? TeamIdentifier(String(identifier[..<dot]))) != nil,
              identifier.index(after: dot) < identifier.endIndex
        else {
            throw .wrongType(file: source, key: key, expected: "'<team ID>.<bundle ID>', like 'ABCDE12345.com.contoso.mail'",
                             found: "'\(DisplayText(identifier))'")
        }
        return identifier
    }

    /// The array of strings at `key`; empty when the key is absent.
    private static func strings(_ root: [String: Any], _ key: String, source: String) throws(EntitlementsError) -> [String] {
        guard let value = root[key] else { return [] }
        guard let entries = value as? [Any] else {
            throw .wrongType(file: source, key: key, expected: "an array of strings", found: Self.typeName(value))
        }
        var strings: [String] = []
        for (index, entry) in entries.enumerated() {
            guard let string = entry as? String else {
                throw .wrongType(file: source, key: "\(key)[\(index)]", expected: "a string", found: Self.typeName(entry))
            }
            strings.append(string)
        }
        return strings
    }

    /// An XML property list holding these entitlements, as Xcode writes it.
    public func propertyListData() throws(EntitlementsError) -> Data {
        do {
            var root: [String: Any] = [:]
            if !keychainAccessGroups.isEmpty { root[Self.keychainAccessGroupsKey] = keychainAccessGroups }
            if !applicationGroups.isEmpty { root[Self.applicationGroupsKey] = applicationGroups }
            if let applicationIdentifier { root[Self.applicationIdentifierKey] = applicationIdentifier }
            return try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
        } catch {
            throw .unreadable(file: "(in memory)", reason: (error as NSError).localizedDescription)
        }
    }

    private static func typeName(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is Bool: "a boolean"
        case is Data: "data"
        case is Date: "a date"
        case is NSNumber: "a number"
        default: "\(type(of: value))"
        }
    }
}

/// Why an entitlements file could not be used. Every message names the file.
public enum EntitlementsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case wrongType(file: String, key: String, expected: String, found: String)
    case invalidGroup(file: String, AccessGroupError)
    /// The file's `application-identifier` is not the app ID of the app it is used for.
    case applicationIdentifierMismatch(file: String, found: String, expected: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read entitlements '\(file)': \(reason)"
        case .wrongType(let file, let key, let expected, let found):
            "entitlements '\(file)': '\(key)' must be \(expected), but it is \(found)"
        case .invalidGroup(let file, let error):
            "entitlements '\(file)': \(error)"
        case .applicationIdentifierMismatch(let file, let found, let expected):
            "entitlements '\(file)': 'application-identifier' is '\(DisplayText(found))', but the app's ID is '\(expected)'; use the dump of this app, or give the team and bundle ID it was signed with"
        }
    }
}
