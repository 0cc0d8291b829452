import Foundation

/// The part of an app's `entitlements.plist` that matters to the keychain: its
/// `keychain-access-groups` array and its `com.apple.security.application-groups`, entries in
/// the order written.
public struct Entitlements: Sendable, Hashable {
    public static let keychainAccessGroupsKey = "keychain-access-groups"
    public static let applicationGroupsKey = "com.apple.security.application-groups"

    /// The raw entries, `$(AppIdentifierPrefix)` not yet expanded.
    public let keychainAccessGroups: [String]
    /// The app groups, as written (`group.com.contoso.shared`).
    public let applicationGroups: [String]

    public init(keychainAccessGroups: [String], applicationGroups: [String] = []) {
        self.keychainAccessGroups = keychainAccessGroups
        self.applicationGroups = applicationGroups
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
        // Either key may be missing when the other is there: an app may share through app
        // groups alone.
        guard root[Self.keychainAccessGroupsKey] != nil || root[Self.applicationGroupsKey] != nil else {
            throw .missingKey(file: source, key: Self.keychainAccessGroupsKey)
        }
        self.keychainAccessGroups = try Self.strings(root, Self.keychainAccessGroupsKey, source: source)
        self.applicationGroups = try Self.strings(root, Self.applicationGroupsKey, source: source)
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
            var root: [String: Any] = [Self.keychainAccessGroupsKey: keychainAccessGroups]
            if !applicationGroups.isEmpty { root[Self.applicationGroupsKey] = applicationGroups }
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
    case missingKey(file: String, key: String)
    case wrongType(file: String, key: String, expected: String, found: String)
    case invalidGroup(file: String, AccessGroupError)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read entitlements '\(file)': \(reason)"
        case .missingKey(let file, let key):
            "entitlements '\(file)' have no '\(key)' key; add the array of keychain groups the app may use"
        case .wrongType(let file, let key, let expected, let found):
            "entitlements '\(file)': '\(key)' must be \(expected), but it is \(found)"
        case .invalidGroup(let file, let error):
            "entitlements '\(file)': \(error)"
        }
    }
}
