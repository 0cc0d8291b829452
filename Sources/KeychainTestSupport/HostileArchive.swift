import Foundation

/// Keyed archives (`NSKeyedArchiver`'s binary property lists) built byte by byte, so that tests
/// can plant what no archiver writes: references out of range, class records that are not
/// classes, cycles, nesting 20,000 deep, shared references that expand exponentially.
public struct HostileArchive: Sendable {
    /// One entry of `$objects`.
    public enum Entry: Sendable {
        /// `$null`.
        case null
        case string(String)
        case data(Data)
        case number(Int)
        /// An object: its class record's index and its fields.
        case object(classRecord: Int, fields: [String: Field])
        /// A class record (`$classname`, `$classes`).
        case classRecord(String)
    }

    /// A field of an object.
    public enum Field: Sendable {
        /// A reference (UID) into `$objects`.
        case reference(Int)
        /// An array of references (`NS.objects`, `NS.keys`).
        case references([Int])
        case integer(Int)
        /// A property-list string in place of a reference (what no archiver writes).
        case inlineString(String)
    }

    public var objects: [Entry]
    /// The root reference in `$top`.
    public var root: Int

    public init(objects: [Entry], root: Int) {
        self.objects = objects
        self.root = root
    }

    // MARK: Shapes

    /// The shapes the adversarial run crashed the readers with, for an archive whose root is an
    /// object of `rootClass` (`ADTokenCacheStoreItem`, or `NSDictionary` for the wipe record).
    public enum Shape: String, Sendable, CaseIterable {
        case rootOutOfRange, referenceOutOfRange, classRecordNotAClass, classRecordIsData, selfReference, cycle
        case deepNesting, wrongType, truncated, sharedReferenceBomb, notAnArchive
    }

    /// An archive of `shape` whose root claims to be a `rootClass`.
    public static func archive(_ shape: Shape, rootClass: String, depth: Int = 20_000) -> Data {
        let dictionary = rootClass == "NSDictionary"
        // 0 $null, 1 root, 2 its class, 3 a string, 4 NSArray class, 5 NSDictionary class
        var base: [Entry] = [.null, .null, .classRecord(rootClass), .string("https://login.microsoftonline.com/common"),
                             .classRecord("NSArray"), .classRecord("NSDictionary")]
        func root(_ fields: [String: Field]) -> Entry { .object(classRecord: 2, fields: fields) }
        func keyed(_ key: String, _ reference: Int) -> [String: Field] {
            dictionary ? ["NS.keys": .references([3]), "NS.objects": .references([reference])] : [key: .reference(reference), "clientId": .reference(3)]
        }
        switch shape {
        case .rootOutOfRange:
            base[1] = root(keyed("authority", 3))
            return HostileArchive(objects: base, root: 4_000).data
        case .referenceOutOfRange:
            base[1] = root(keyed("authority", 9_999))
        case .classRecordNotAClass:
            base[1] = .object(classRecord: 3, fields: keyed("authority", 3))
        case .classRecordIsData:
            base.append(.data(Data("NSData".utf8)))
            base[1] = .object(classRecord: base.count - 1, fields: keyed("authority", 3))
        case .selfReference:
            base[1] = root(keyed("authority", 1))
        case .cycle:
            base.append(.object(classRecord: 2, fields: keyed("authority", 1)))
            base[1] = root(keyed("authority", base.count - 1))
        case .deepNesting:
            let first = base.count
            for level in 0..<depth {
                let next = level == depth - 1 ? 3 : first + level + 1
                base.append(dictionary
                    ? .object(classRecord: 5, fields: ["NS.keys": .references([3]), "NS.objects": .references([next])])
                    : .object(classRecord: 4, fields: ["NS.objects": .references([next])]))
            }
            base[1] = root(keyed(dictionary ? "bundleId" : "userInformation", first))
        case .wrongType:
            base.append(.data(Data(repeating: 0x41, count: 16)))
            base[1] = root(keyed("authority", base.count - 1))
        case .truncated:
            base[1] = root(keyed("authority", 3))
            let whole = HostileArchive(objects: base, root: 1).data
            return whole.prefix(whole.count / 2)
        case .sharedReferenceBomb:
            // Each level an array of the next level twice: 2^depth objects once expanded.
            let first = base.count
            let levels = min(depth, 60)
            for level in 0..<levels {
                let next = level == levels - 1 ? 3 : first + level + 1
                base.append(.object(classRecord: 4, fields: ["NS.objects": .references([next, next])]))
            }
            base[1] = root(keyed(dictionary ? "bundleId" : "authority", first))
        case .notAnArchive:
            return Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)
        }
        return HostileArchive(objects: base, root: 1).data
    }

    // MARK: Writing

    /// The archive as a binary property list (`bplist00`), 4-byte references, 8-byte offsets.
    public var data: Data {
        var table = PlistTable()
        var entries: [Int] = []
        for entry in objects { entries.append(table.add(entry: entry)) }
        let top = table.dictionary(["root": table.add(.uid(root))])
        let archive = table.dictionary([
            "$archiver": table.add(.string("NSKeyedArchiver")), "$version": table.add(.integer(100_000)),
            "$top": top, "$objects": table.add(.array(entries)),
        ])
        return table.encoded(top: archive)
    }

    /// A flat table of property-list objects, each referring to others by index.
    private struct PlistTable {
        enum Node {
            case string(String), data(Data), integer(Int), uid(Int), array([Int]), dictionary(keys: [Int], values: [Int])
        }

        var nodes: [Node] = []

        mutating func add(_ node: Node) -> Int {
            nodes.append(node)
            return nodes.count - 1
        }

        /// A dictionary of string keys (each added as a string node) to the nodes given.
        mutating func dictionary(_ fields: [String: Int]) -> Int {
            let sorted = fields.sorted { $0.key < $1.key }
            let keys = sorted.map { add(.string($0.key)) }
            return add(.dictionary(keys: keys, values: sorted.map(\.value)))
        }

        mutating func add(entry: Entry) -> Int {
            switch entry {
            case .null: return add(.string("$null"))
            case .string(let text): return add(.string(text))
            case .data(let data): return add(.data(data))
            case .number(let number): return add(.integer(number))
            case .classRecord(let name):
                let chain = add(.array([add(.string(name)), add(.string("NSObject"))]))
                return dictionary(["$classname": add(.string(name)), "$classes": chain])
            case .object(let classRecord, let fields):
                var indexes = ["$class": add(.uid(classRecord))]
                for (name, field) in fields {
                    switch field {
                    case .reference(let reference): indexes[name] = add(.uid(reference))
                    case .references(let references): indexes[name] = add(.array(references.map { add(.uid($0)) }))
                    case .integer(let number): indexes[name] = add(.integer(number))
                    case .inlineString(let text): indexes[name] = add(.string(text))
                    }
                }
                return dictionary(indexes)
            }
        }

        func encoded(top: Int) -> Data {
            var bytes = Array("bplist00".utf8)
            var offsets: [Int] = []
            func big(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
            func marker(_ high: UInt8, _ count: Int) -> [UInt8] { count < 15 ? [high << 4 | UInt8(count)] : [high << 4 | 0xF, 0x13] + big(count, 8) }
            for node in nodes {
                offsets.append(bytes.count)
                switch node {
                case .string(let text):
                    let utf16 = Array(text.utf16)
                    if utf16.allSatisfy({ $0 < 0x80 }) {
                        bytes += marker(0x5, utf16.count) + utf16.map { UInt8($0) }
                    } else {
                        bytes += marker(0x6, utf16.count) + utf16.flatMap { big(Int($0), 2) }
                    }
                case .data(let data): bytes += marker(0x4, data.count) + data
                case .integer(let number): bytes += [0x13] + big(number, 8)
                case .uid(let reference): bytes += [0x83] + big(reference, 4)
                case .array(let references): bytes += marker(0xA, references.count) + references.flatMap { big($0, 4) }
                case .dictionary(let keys, let values): bytes += marker(0xD, keys.count) + (keys + values).flatMap { big($0, 4) }
                }
            }
            let table = bytes.count
            for offset in offsets { bytes += big(offset, 8) }
            bytes += [0, 0, 0, 0, 0, 0, 8, 4] + big(nodes.count, 8) + big(top, 8) + big(table, 8)
            return Data(bytes)
        }
    }
}
