import Foundation
import SharedKeychain

/// Every item of one access group, data included, so a wiped group can be brought back.
///
/// As JSON: `format`, `group`, `takenAt`, and `items` with every attribute, `data` in base64,
/// dates in seconds since 2001-01-01 (exact). The file holds secrets: it is written with mode 0600, and neither this type's description
/// nor the CLI ever prints item data.
public struct GroupSnapshot: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file format's version.
    public static let currentFormat = 1

    /// The file format's version.
    public var format: Int
    /// The full access group.
    public var group: String
    /// When it was taken.
    public var takenAt: Date
    /// The items, attributes and data, in creation order.
    public var items: [StoredItem]

    /// - Parameters: see the properties.
    public init(group: String, takenAt: Date, items: [StoredItem]) {
        self.format = Self.currentFormat
        self.group = group
        self.takenAt = takenAt
        self.items = items
    }

    /// Reads every item of `group` from `store`, data included. An item whose access control
    /// asks the user is asked for as `item get` asks (the store's device answers): a refusal
    /// fails the whole snapshot with that status (errSecAuthFailed, errSecUserCanceled), and
    /// nothing is taken, since a snapshot without some items' data could not restore them.
    public static func take(of group: String, from store: any ItemStore, at date: Date = Date()) throws(KeychainError) -> GroupSnapshot {
        let items: [StoredItem]
        do { items = try store.items(matching: ItemQuery(groups: [group]), limit: nil) } catch { throw .storage(error) }
        do { try Keychain.authorizeData(of: items, from: store) } catch {
            throw .authentication(
                error.status,
                "\(error.message); a snapshot holds every item's data, so nothing was taken \(Remedy.allowAuthentication)")
        }
        return GroupSnapshot(group: group, takenAt: date, items: items)
    }

    /// `group 'G': 7 items taken at T`; never data.
    public var description: String {
        "group '\(DisplayText(group))': \(items.count.counted("item")) taken at \(takenAt.formatted(.iso8601))"
    }

    /// Puts back every item of the snapshot that is missing from the store, with its dates, its
    /// attributes (`kSecAttrCreator` included) and its provenance, or with `restoredBy` as the
    /// provenance when one is given: a snapshot file is whatever its holder wrote, so a restore
    /// on someone's behalf names them, never the file's word. Items present
    /// under the same primary key are left as they are: what is in the store now is newer than
    /// the snapshot. Items of another group than the snapshot's are refused, and nothing is
    /// restored.
    ///
    /// - Parameters:
    ///   - store: where to put the items back.
    ///   - restoredBy: the app or person restoring, recorded as the items' provenance.
    ///   - progress: called after each item with the count done (restored or kept) and the total.
    public func restore(
        into store: any ItemStore, restoredBy: String? = nil, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(StorageError) -> RestoreResult {
        if let stray = items.first(where: { $0.group != group }) {
            throw .corruptItem(
                location: "snapshot of '\(DisplayText(group))'",
                reason: "it holds an item of group '\(DisplayText(stray.group))' (\(stray.primaryKey)); nothing was restored")
        }
        // Counted, not kept: a copy of every restored item (data included) doubled what a
        // restore of 10,000 items held.
        var restored = 0
        var kept = 0
        var addedBy: [String: Int] = [:]
        for var item in items {
            if let restoredBy { item.provenance = Provenance(addedBy: restoredBy) }
            do {
                try store.add(item)
                restored += 1
                addedBy[item.provenance?.addedBy ?? Provenance.unknown, default: 0] += 1
            } catch {
                guard case .duplicateItem = error else { throw error }
                kept += 1
            }
            progress(restored + kept, items.count)
        }
        return RestoreResult(group: group, restored: restored, alreadyPresent: kept, addedBy: addedBy)
    }

    /// Writes the snapshot as JSON, readable and writable by the owner only (0600), replacing
    /// `url` atomically; a `url` that is not a regular file is refused and left untouched.
    public func write(to url: URL) throws(SnapshotError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Foundation's own encoding (seconds since 2001-01-01): exact, so restored items keep
        // their creation order to the sub-second.
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.dataEncodingStrategy = .base64
        // The document without its items, then the items one by one where its empty array
        // stands: the same bytes as encoding it whole, without the whole in memory at once.
        var frame = self
        frame.items = []
        let framed: Data
        do { framed = try encoder.encode(frame) } catch { throw .unwritable(path: url.path, reason: "\(error)") }
        guard let array = framed.firstRange(of: Data(Self.emptyItems.utf8)) else {
            throw .unwritable(path: url.path, reason: "the encoder laid out the snapshot in an unexpected way")
        }
        // Owner-only from the first byte, renamed over `url`; never through a device or symlink.
        do {
            try PrivateFile.write(to: url) { append in
                try append(framed[..<array.lowerBound] + Data(Self.itemsKey.utf8))
                try PrettyJSONArray.write(items, depth: 1, encoder: encoder, to: append)
                try append(framed[array.upperBound...])
            }
        } catch {
            throw .unwritable(path: url.path, reason: error.description)
        }
    }

    /// The items member of an empty snapshot as the pretty encoder lays it out, and its key.
    private static let itemsKey = "\"items\" : "
    private static let emptyItems = itemsKey + "[\n\n  ]"

    /// Dates from 1970 to 9999, the same as `--now`.
    static let dates = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// Every numeric field in the range the rest of the tool holds it to (a type 2^40 or a
    /// version that an update would wrap were accepted once), the field named in the error.
    func checkRanges() throws(KeychainError) {
        if !Self.dates.contains(takenAt) { throw .invalidParameter("takenAt must be a date from 1970 to 9999; got \(takenAt)") }
        for (index, item) in items.enumerated() {
            let field = "items[\(index)]"
            try InputValidation.check(item.version, "\(field).version", in: 1...StoredItem.maxVersion)
            for (name, date) in [("creationDate", item.creationDate), ("modificationDate", item.modificationDate)] where !Self.dates.contains(date) {
                throw .invalidParameter("\(field).\(name) must be a date from 1970 to 9999; got \(date.timeIntervalSince1970) seconds since 1970")
            }
        }
    }

    /// Reads a snapshot file, every field checked (numbers and dates in range).
    public static func read(from url: URL) throws(SnapshotError) -> GroupSnapshot {
        let data: Data
        do { data = try InputValidation.readDocument(at: url, field: "snapshot") } catch { throw .unreadable(path: url.path, reason: error.message) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        decoder.dataDecodingStrategy = .base64
        let snapshot: GroupSnapshot
        do { snapshot = try decoder.decode(GroupSnapshot.self, from: data) } catch {
            throw .invalid(path: url.path, reason: InputValidation.describe(decodingError: error))
        }
        guard snapshot.format == currentFormat else {
            throw .invalid(path: url.path, reason: "format \(snapshot.format) is not supported (expected \(currentFormat))")
        }
        if let stray = snapshot.items.first(where: { $0.group != snapshot.group }) {
            throw .invalid(path: url.path, reason: "an item is in group '\(stray.group)', not the snapshot's group '\(snapshot.group)'")
        }
        do { try snapshot.checkRanges() } catch { throw .invalid(path: url.path, reason: error.message) }
        return snapshot
    }
}

/// A snapshot file that cannot be written or read.
public enum SnapshotError: Error, Sendable, Equatable, StatusReporting, CustomStringConvertible {
    /// The file cannot be written.
    case unwritable(path: String, reason: String)
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a snapshot this version reads.
    case invalid(path: String, reason: String)

    /// File trouble is errSecIO; a file that is not a snapshot is errSecParam.
    public var status: KeychainStatus {
        switch self {
        case .unwritable, .unreadable: .io
        case .invalid: .param
        }
    }

    /// What is wrong and where.
    public var message: String {
        switch self {
        case .unwritable(let path, let reason): "cannot write the snapshot \(path): \(reason)"
        case .unreadable(let path, let reason): "cannot read the snapshot \(path): \(reason)"
        case .invalid(let path, let reason): "\(path) is not a group snapshot: \(reason)"
        }
    }

    /// The message.
    public var description: String { message }
}

/// What a snapshot restore put back.
public struct RestoreResult: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The group restored.
    public let group: String
    /// Items added back.
    public let restored: Int
    /// Items of the snapshot already in the store, left as they are.
    public let alreadyPresent: Int
    /// Who the items put back are recorded as added by, with counts: the emulator's provenance.
    public let addedBy: [String: Int]

    /// - Parameters: see the properties.
    public init(group: String, restored: Int, alreadyPresent: Int, addedBy: [String: Int]) {
        self.group = group
        self.restored = restored
        self.alreadyPresent = alreadyPresent
        self.addedBy = addedBy
    }

    /// `restored 7 items to group 'G' (1 already present)`.
    public var description: String {
        "restored \(restored.counted("item")) to group '\(DisplayText(group))'"
            + (alreadyPresent > 0 ? " (\(alreadyPresent) already present, kept as they are)" : "")
    }
}
