import Foundation
import SharedKeychain

/// A serialized cache, checked completely before anything is written: every section and entry
/// must be an object of the schema, with a key derived from its fields as an export derives it.
struct CacheImport {
    /// The items to write, in a stable order (sections, then keys, sorted).
    private(set) var writes: [(layout: ItemLayout, data: Data)] = []

    /// - Throws: ``TokenCacheError/invalidImport(section:key:reason:)`` naming the first bad
    ///   section or entry.
    init(_ data: Data) throws(TokenCacheError) {
        if let offset = InputValidation.firstInvalidUTF8Offset(data) {
            throw .invalidImport(section: "(root)", key: nil, reason: "the input is not valid UTF-8 (bad byte at offset \(offset))")
        }
        do {
            try InputValidation.checkSize(data, field: "the input")
            if let tree = try? JSONSerialization.jsonObject(with: data) { try InputValidation.checkShape(of: tree, field: "the input") }
        } catch {
            throw .invalidImport(section: "(root)", key: nil, reason: error.message)
        }
        guard let root = CacheJSON.object(from: data) else {
            throw .invalidImport(section: "(root)", key: nil, reason: "the input is not a JSON object")
        }
        var taken = Set<ItemAddress>()
        for (name, value) in root.sorted(by: { $0.key < $1.key }) {
            guard let section = CacheSection(rawValue: name) else {
                let expected = CacheSection.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidImport(section: name, key: nil, reason: "unknown section; expected \(expected)")
            }
            guard let entries = value.objectValue else {
                throw .invalidImport(section: name, key: nil, reason: "must be an object, but it is \(value.kindName)")
            }
            for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
                guard let object = entry.objectValue else {
                    throw .invalidImport(section: name, key: key, reason: "must be an object, but it is \(entry.kindName)")
                }
                let layout: ItemLayout
                do { layout = try Self.layout(of: object, key: key, in: section) } catch {
                    throw .invalidImport(section: name, key: key, reason: error.reason)
                }
                guard taken.insert(layout.address).inserted else {
                    throw .invalidImport(section: name, key: key, reason: "another entry maps to the same keychain item")
                }
                writes.append((layout, CacheJSON.data(object)))
            }
        }
    }

    /// Where the entry goes; checks its fields and that `key` is the key they give.
    private static func layout(of object: JSONObject, key: String, in section: CacheSection) throws(FieldError) -> ItemLayout {
        let expected: [(key: String, layout: ItemLayout)]
        switch section {
        case .accessToken, .refreshToken, .idToken:
            let credential = try Credential(object: object)
            guard credential.type.section == section else {
                throw FieldError("'credential_type' is \(credential.type.rawValue), which belongs in \(credential.type.section.rawValue)")
            }
            expected = [(credential.exportKey(), credential.layout())]
                + (credential.type == .refreshToken && credential.family != nil
                    ? [(credential.exportKey(asFamilyToken: true), credential.layout(asFamilyToken: true))] : [])
        case .account:
            let account = try CachedAccount(object: object)
            expected = [(account.exportKey, account.layout)]
        case .appMetadata:
            let metadata = try AppMetadata(object: object)
            expected = [(metadata.exportKey, metadata.layout)]
        }
        guard let match = expected.first(where: { $0.key == key }) else {
            let keys = expected.map { "'\($0.key)'" }.joined(separator: " or ")
            throw FieldError("the key does not match the entry's fields; expected \(keys)")
        }
        return match.layout
    }
}
