import Foundation

/// The part of an app's `entitlements.plist` that matters to the keychain: its
/// `keychain-access-groups` array, entries in the order written.
public struct Entitlements: Sendable, Hashable {
    public static let keychainAccessGroupsKey = "keychain-access-groups"

    /// The raw entries, `$(AppIdentifierPrefix)` not yet expanded.
    public let keychainAccessGroups: [String]

    public init(keychainAccessGroups: [String]) {
        self.keychainAccessGroups = keychainAccessGroups
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
        guard let value = root[Self.keychainAccessGroupsKey] else {
            throw .missingKey(file: source, key: Self.keychainAccessGroupsKey)
        }
        guard let entries = value as? [Any] else {
            throw .wrongType(file: source, key: Self.keychainAccessGroupsKey, expected: "an array of strings", found: Self.typeName(value))
        }
        var groups: [String] = []
        for (index, entry) in entries.enumerated() {
            guard let string = entry as? String else {
                throw .wrongType(file: source, key: "\(Self.keychainAccessGroupsKey)[\(index)]", expected: "a string", found: Self.typeName(entry))
            }
            groups.append(string)
        }
        self.keychainAccessGroups = groups
    }

    /// An XML property list holding these entitlements, as Xcode writes it.
    public func propertyListData() throws(EntitlementsError) -> Data {
        do {
            return try PropertyListSerialization.data(
                fromPropertyList: [Self.keychainAccessGroupsKey: keychainAccessGroups], format: .xml, options: 0)
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
