import Foundation
import KeychainStorage
import Synchronization

/// The secret value stored for every item: the WHOLE record, not just the data.
///
/// The Secret Service returns many items' secrets in one `GetSecrets` call but has no call that
/// returns many items' attributes, so the attributes travel inside the secret as well and a list
/// of N items costs one search and one `GetSecrets`.
///
/// Layout, content type `application/x-shared-keychain-item`:
///
///     offset 0        8 bytes  magic, ASCII "SKCITEM1"
///     offset 8        4 bytes  header length N, unsigned, big-endian
///     offset 12       N bytes  header: a UTF-8 JSON object (keys below)
///     offset 12 + N   rest     the item's data, raw bytes (binary-safe)
///
/// Header keys: `v` (format version, 1); `group`, `account`, `service`; `generic` (base64),
/// `type` (integer), `label`, `comment`, `desc`, `creator` (`kSecAttrCreator`, an integer;
/// records of the layout before provenance hold the adding app's bundle ID here as a string,
/// read as `added`), `added` and `modified` (the emulator's provenance: the bundle IDs of the
/// apps that added and last modified the item) (each absent when nil), `sync`
/// (true, absent when false); `creationDate` and
/// `modificationDate` (integer milliseconds since 1970); `creationTime` and `modificationTime`
/// (the exact `Date` as seconds since 2001-01-01, a double, so dates round-trip bit for bit; a
/// reader that wants milliseconds ignores them); `sequence` (the item's place in its group's
/// insertion order: a nanosecond clock reading taken when it got its primary key); `version`
/// (the item's write count, absent in items written before versions existed: read as 1);
/// `adata` and `sdata` (true when the account or service was given as `Data`, absent when
/// false); `inet` (an internet password's attributes: an object of `securityDomain`, `server`,
/// `protocol`, `authenticationType`, `port`, `path`; absent for a generic password); `acl` (the
/// access control's flags, Apple's bit values; absent when the item has none); `key` (a key's
/// attributes: an object of `keyClass`, `applicationLabel`, `applicationTag` (base64),
/// `keyType`, `keySizeInBits`, `effectiveKeySize`; absent for a password).
struct ItemEnvelope: Sendable {
    static let magic = Array("SKCITEM1".utf8)
    static let contentType = "application/x-shared-keychain-item"
    static let version = 1

    var item: StoredItem
    /// Insertion order within the group; ties are impossible within a process.
    var sequence: UInt64

    /// Why bytes are not an envelope; never contains secret data.
    struct DecodingError: Error, Sendable {
        let reason: String
    }

    /// The header's `creator`: a number (`kSecAttrCreator`), or in records of the layout before
    /// provenance the text it held (the adding app's bundle ID, or a caller's number as text).
    private enum CreatorField: Codable {
        case number(UInt32)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(UInt32.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            }
        }
    }

    private struct Header: Codable {
        var v: Int
        var group: String
        var account: String
        var service: String
        var generic: String?
        var type: Int?
        var label: String?
        var comment: String?
        var desc: String?
        var creator: CreatorField?
        var added: String?
        var modified: String?
        var sync: Bool?
        var creationDate: Int64
        var modificationDate: Int64
        var creationTime: Double?
        var modificationTime: Double?
        var sequence: UInt64
        var version: UInt64?
        /// Apple's constant value (`ak`, `ck`, ...); absent in records from before classes.
        var accessible: String?
        var adata: Bool?
        var sdata: Bool?
        var inet: InternetAttributes?
        var acl: UInt?
        var key: KeyAttributes?
    }

    func encoded() throws -> Data {
        let header = Header(
            v: Self.version,
            group: item.group,
            account: item.account,
            service: item.service,
            generic: item.generic?.base64EncodedString(),
            type: item.type.map(Int.init),
            label: item.label,
            comment: item.comment,
            desc: item.itemDescription,
            creator: item.creator.map(CreatorField.number),
            added: item.provenance?.addedBy,
            modified: item.provenance?.modifiedBy,
            sync: item.synchronizable ? true : nil,
            creationDate: Self.milliseconds(item.creationDate),
            modificationDate: Self.milliseconds(item.modificationDate),
            creationTime: item.creationDate.timeIntervalSinceReferenceDate,
            modificationTime: item.modificationDate.timeIntervalSinceReferenceDate,
            sequence: sequence,
            version: item.version,
            accessible: item.accessibility == .whenUnlocked ? nil : item.accessibility.secValue,
            adata: item.accountIsData ? true : nil,
            sdata: item.serviceIsData ? true : nil,
            inet: item.internet,
            acl: item.accessControl?.rawValue,
            key: item.key)
        let json = try JSONEncoder().encode(header)
        var bytes = Data(capacity: Self.magic.count + 4 + json.count + item.data.count)
        bytes.append(contentsOf: Self.magic)
        let length = UInt32(json.count)
        bytes.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
        bytes.append(json)
        bytes.append(item.data)
        return bytes
    }

    /// Whether `bytes` start with the envelope's magic: anything else is a plain secret another
    /// Secret Service client wrote.
    static func isEnvelope(_ bytes: Data) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// Decodes `bytes`; `decoder` is passed in so a list reuses one.
    static func decode(_ bytes: Data, using decoder: JSONDecoder) throws(DecodingError) -> ItemEnvelope {
        let prefix = magic.count + 4
        guard bytes.count >= prefix, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw DecodingError(reason: "not a shared-keychain item (no SKCITEM1 header)")
        }
        let start = bytes.startIndex
        let length = bytes[start + 8 ..< start + 12].reduce(0) { ($0 << 8) | Int($1) }
        guard bytes.count - prefix >= length else {
            throw DecodingError(reason: "the header is cut short (\(length) bytes announced, \(bytes.count - prefix) present)")
        }
        let headerRange = (start + prefix) ..< (start + prefix + length)
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: bytes.subdata(in: headerRange))
        } catch {
            throw DecodingError(reason: "the header is not valid JSON for format \(version)")
        }
        guard header.v == version else { throw DecodingError(reason: "unknown format version \(header.v)") }
        var generic: Data?
        if let text = header.generic {
            guard let decoded = Data(base64Encoded: text) else { throw DecodingError(reason: "generic is not base64") }
            generic = decoded
        }
        var type: UInt32?
        if let value = header.type {
            guard let number = UInt32(exactly: value) else { throw DecodingError(reason: "type \(value) is not a number from 0 to 4294967295") }
            type = number
        }
        var creator: UInt32?
        var provenance: Provenance?
        switch header.creator {
        case .number(let number)?: creator = number
        case .text(let text)?: (creator, provenance) = Provenance.legacy(creator: text)
        case nil: break
        }
        if header.added != nil || header.modified != nil {
            provenance = Provenance(addedBy: header.added ?? provenance?.addedBy, modifiedBy: header.modified)
        }
        var accessibility = Accessibility.whenUnlocked
        if let value = header.accessible {
            guard let known = Accessibility(secValue: value) else { throw DecodingError(reason: "unknown accessibility class \(value)") }
            accessibility = known
        }
        let item = StoredItem(
            group: header.group,
            account: header.account,
            service: header.service,
            generic: generic,
            type: type,
            label: header.label,
            comment: header.comment,
            itemDescription: header.desc,
            creator: creator,
            provenance: provenance,
            creationDate: date(exact: header.creationTime, milliseconds: header.creationDate),
            modificationDate: date(exact: header.modificationTime, milliseconds: header.modificationDate),
            data: bytes.subdata(in: headerRange.upperBound ..< bytes.endIndex),
            version: header.version ?? 1,
            accessibility: accessibility,
            synchronizable: header.sync ?? false,
            accountIsData: header.adata ?? false,
            serviceIsData: header.sdata ?? false,
            internet: header.inet,
            accessControl: header.acl.map(AccessControlFlags.init(rawValue:)),
            key: header.key)
        return ItemEnvelope(item: item, sequence: header.sequence)
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // Dates far outside any real use (or not finite) are clamped rather than trapping.
        guard value.isFinite else { return 0 }
        return Int64(exactly: value) ?? (value < 0 ? Int64.min : Int64.max)
    }

    private static func date(exact: Double?, milliseconds: Int64) -> Date {
        if let exact { return Date(timeIntervalSinceReferenceDate: exact) }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// Numbers that order items by when they got their primary key, like the insertion order of
/// ``KeychainStorage/InMemoryStore``: a wall-clock reading in nanoseconds, made strictly
/// increasing within the process. Adds to one group are serialised by the group lock, so the
/// order holds across processes too (as far as their clocks agree).
enum InsertionClock {
    private static let last = Mutex<UInt64>(0)

    static func next() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let reading = UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
        return last.withLock { last in
            last = max(reading, last &+ 1)
            return last
        }
    }
}
