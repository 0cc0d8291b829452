import Foundation
import SharedKeychain

/// A serialized cache, checked completely before anything is written: every section and entry
/// must be an object of the schema. Entry keys are opaque (each SDK spells them its own way):
/// where an entry goes comes from its fields.
struct CacheImport {
    /// The items to write, in a stable order (sections, then keys, sorted).
    private(set) var writes: [(layout: ItemLayout, data: Data)] = []

    /// - Throws: ``TokenCacheError/invalidImport(section:key:reason:)`` naming the first bad
    ///   section or entry.
    init(_ data: Data) throws(TokenCacheError) {
        if let offset = InputValidation.firstInvalidUTF8Offset(data) {
            throw .invalidImport(section: "(root)", key: nil, reason: "the input is not valid UTF-8 (bad byte at offset \(offset))")
        }
        let tree: Any?
        do {
            try InputValidation.checkSize(data, field: "the input")
            tree = try? JSONSerialization.jsonObject(with: data)
            if let tree { try InputValidation.checkShape(of: tree, field: "the input") }
        } catch {
            throw .invalidImport(section: "(root)", key: nil, reason: error.message)
        }
        guard let tree, let root = JSONValue(tree)?.objectValue else {
            throw .invalidImport(section: "(root)", key: nil, reason: "the input is not a JSON object")
        }
        // Keys are opaque: every SDK spells them its own way. Identity comes from the fields.
        var claims: [ItemAddress: Claim] = [:]
        var order: [ItemAddress] = []
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
                let layouts: [(layout: ItemLayout, isOwn: Bool, object: JSONObject)]
                do { layouts = try Self.layouts(of: object, in: section) } catch {
                    throw .invalidImport(section: name, key: key, reason: error.reason)
                }
                let modified = Self.modificationTime(of: object)
                for (layout, isOwn, value) in layouts {
                    let claim = Claim(section: name, key: key, layout: layout, data: CacheJSON.data(value), isOwn: isOwn, modified: modified)
                    guard let earlier = claims[layout.address] else {
                        claims[layout.address] = claim
                        order.append(layout.address)
                        continue
                    }
                    if try claim.replaces(earlier) { claims[layout.address] = claim }
                }
            }
        }
        writes = order.compactMap { claims[$0].map { ($0.layout, $0.data) } }
    }

    /// An entry's claim on a keychain item: its own item, or (a refresh token of a family) the
    /// family's item, which every family member's refresh token also claims.
    private struct Claim {
        let section: String
        let key: String
        let layout: ItemLayout
        let data: Data
        let isOwn: Bool
        let modified: Int

        /// Whether this claim wins over `earlier` on the same item. An entry's own item beats a
        /// family claim; of two family claims the newer token wins (the earlier on a tie); two
        /// entries whose own item is the same must be the same token.
        func replaces(_ earlier: Claim) throws(TokenCacheError) -> Bool {
            switch (isOwn, earlier.isOwn) {
            case (true, true):
                guard data == earlier.data else {
                    throw .invalidImport(
                        section: section, key: key,
                        reason: "it and \(earlier.section)['\(DisplayText(earlier.key))'] are the same keychain item with different contents")
                }
                return false
            case (true, false): return true
            case (false, true): return false
            case (false, false): return modified > earlier.modified
            }
        }
    }

    /// When a token was written, from the fields SDKs put there (`last_modification_time`,
    /// else `cached_at`), in epoch seconds; 0 when neither is there.
    private static func modificationTime(of object: JSONObject) -> Int {
        for field in ["last_modification_time", "cached_at"] {
            switch object[field] {
            case .string(let text)?: if let seconds = Int(text) { return seconds }
            case .integer(let seconds)?: return Int(seconds)
            default: continue
            }
        }
        return 0
    }

    /// Where the entry goes, from its fields alone, with the value stored there: one item, or
    /// two for a refresh token of a family, as the iOS SDKs keep them: the family's with
    /// `family_id`, the client's own copy without it ("Save a separate entry for MRRT").
    private static func layouts(of object: JSONObject, in section: CacheSection) throws(FieldError)
        -> [(layout: ItemLayout, isOwn: Bool, object: JSONObject)]
    {
        switch section {
        case .accessToken, .refreshToken, .idToken:
            let credential = try Credential(object: object)
            guard credential.type.section == section else {
                throw FieldError("'credential_type' is \(credential.type.rawValue), which belongs in \(credential.type.section.rawValue)")
            }
            let isFamilyToken = credential.type == .refreshToken && credential.family.map {
                CacheKey.normalized($0) != CacheKey.normalized(credential.clientID)
            } ?? false
            // A FamilyRefreshToken (single-FRT mode) is keyed by its family alone.
            if credential.type == .familyRefreshToken { return [(credential.layout(asFamilyToken: true), true, object)] }
            guard isFamilyToken else { return [(credential.layout(), true, object)] }
            var own = object
            own["family_id"] = nil
            return [(credential.layout(), true, own), (credential.layout(asFamilyToken: true), false, object)]
        case .account:
            return [(try CachedAccount(object: object).layout, true, object)]
        case .appMetadata:
            return [(try AppMetadata(object: object).layout, true, object)]
        }
    }
}
