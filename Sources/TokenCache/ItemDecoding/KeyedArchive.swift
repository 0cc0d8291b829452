import Foundation
import SharedKeychain

/// Reads an `NSKeyedArchiver` archive that another app put in the group, within limits, without
/// `NSKeyedUnarchiver`: swift-corelibs-foundation's unarchiver stops the process (a fatal error,
/// or a stack overflow) on an out-of-range reference, a class record that is not a class, a
/// value of an unexpected class, a cycle or deep nesting, so one crafted item would take every
/// app of the group down. This walk checks each of those and throws instead.
///
/// Like `NSKeyedUnarchiver` with secure coding, only the classes the reader allows may appear;
/// the SDK fails the whole item otherwise, and skips it.
enum KeyedArchive {
    /// Foundation's value classes, as archived, and what the walk makes of them.
    static let valueClasses: Set<String> = [
        "NSString", "NSMutableString", "NSDate", "NSData", "NSMutableData", "NSDictionary", "NSMutableDictionary",
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSNull", "NSNumber", "NSURL",
    ]

    /// The root object (`NSKeyedArchiveRootObjectKey`) of `data`, decoded.
    /// - Parameter classes: the classes that may appear, as `$classname` names them.
    static func root(of data: Data, allowing classes: Set<String>, limits: InputValidation.DocumentLimits = .storedValue)
        throws(ItemDecodingError) -> ArchivedValue
    {
        let plist = try BinaryPropertyList(data, limits: limits)
        guard case .dictionary(let keys, let values) = plist.objects[plist.top] else { throw .notAnArchive }
        let archive = try stringKeyed(keys, values, in: plist)
        guard let archiver = archive["$archiver"], case .string("NSKeyedArchiver") = plist.objects[archiver],
              let objectsIndex = archive["$objects"], case .array(let objects) = plist.objects[objectsIndex],
              let topIndex = archive["$top"], case .dictionary(let topKeys, let topValues) = plist.objects[topIndex]
        else { throw .notAnArchive }
        guard let rootIndex = try stringKeyed(topKeys, topValues, in: plist)["root"], case .uid(let root) = plist.objects[rootIndex] else {
            throw .malformed("'$top' has no root reference")
        }
        var walk = Walk(plist: plist, objects: objects, classes: classes, limits: limits)
        return try walk.decode(root, depth: 1)
    }

    /// A property-list dictionary whose keys are strings, as indexes of its values.
    static func stringKeyed(_ keys: [Int], _ values: [Int], in plist: BinaryPropertyList) throws(ItemDecodingError) -> [String: Int] {
        var result: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = plist.objects[key] else { throw .malformed("a dictionary key is not a string") }
            result[name] = value
        }
        return result
    }

    /// One walk of the object graph from the root: depth, cycles and objects decoded bounded.
    private struct Walk {
        let plist: BinaryPropertyList
        /// `$objects`, as indexes into the property list.
        let objects: [Int]
        let classes: Set<String>
        let limits: InputValidation.DocumentLimits
        /// The archive objects on the path from the root to the one being decoded.
        var path = Set<Int>()
        var decoded = 0

        mutating func decode(_ reference: Int, depth: Int) throws(ItemDecodingError) -> ArchivedValue {
            guard reference < objects.count else { throw .referenceOutOfRange(count: objects.count) }
            guard depth <= limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
            guard !path.contains(reference) else { throw .cycle }
            decoded += 1
            guard decoded <= limits.maxNodes else { throw .tooManyObjects(count: decoded, limit: limits.maxNodes) }
            switch plist.objects[objects[reference]] {
            case .string("$null"), .null: return .null
            case .string(let text): return .string(text)
            case .integer(let number): return .number(Double(number))
            case .real(let number): return .number(number)
            case .bool(let flag): return .number(flag ? 1 : 0)
            case .data(let data): return .data(data)
            case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .uid, .array: throw .malformed("object \(reference) is neither a value nor an object")
            case .dictionary(let keys, let values):
                path.insert(reference)
                defer { path.remove(reference) }
                return try object(try KeyedArchive.stringKeyed(keys, values, in: plist), depth: depth)
            }
        }

        /// An archived object: its class record checked, then its fields by class.
        private mutating func object(_ fields: [String: Int], depth: Int) throws(ItemDecodingError) -> ArchivedValue {
            guard let classField = fields["$class"], case .uid(let classReference) = plist.objects[classField] else {
                throw .malformed("an object has no class reference")
            }
            guard classReference < objects.count else { throw .referenceOutOfRange(count: objects.count) }
            guard case .dictionary(let keys, let values) = plist.objects[objects[classReference]],
                  let nameIndex = try KeyedArchive.stringKeyed(keys, values, in: plist)["$classname"],
                  case .string(let className) = plist.objects[nameIndex]
            else { throw .notAClass(reference: classReference) }
            guard classes.contains(className) else { throw .unexpectedClass(className) }
            switch className {
            case "NSString", "NSMutableString":
                guard let text = fields["NS.string"], case .string(let value) = plist.objects[text] else { throw .malformed("a string has no 'NS.string'") }
                return .string(value)
            case "NSDate":
                switch fields["NS.time"].map({ plist.objects[$0] }) {
                case .real(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: seconds))
                case .integer(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
                default: throw .malformed("a date has no 'NS.time'")
                }
            case "NSData", "NSMutableData":
                guard let bytes = fields["NS.data"], case .data(let value) = plist.objects[bytes] else { throw .malformed("data has no 'NS.data'") }
                return .data(value)
            case "NSNull":
                return .null
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
                return .array(try elements(fields["NS.objects"], depth: depth))
            case "NSDictionary", "NSMutableDictionary":
                let keys = try elements(fields["NS.keys"], depth: depth)
                let values = try elements(fields["NS.objects"], depth: depth)
                guard keys.count == values.count else { throw .malformed("a dictionary has \(keys.count) keys and \(values.count) values") }
                var dictionary: [String: ArchivedValue] = [:]
                for (key, value) in zip(keys, values) {
                    guard case .string(let name) = key else { throw .wrongType(key: "NS.keys", expected: "a string", found: key.kindName) }
                    dictionary[name] = value
                }
                return .dictionary(dictionary)
            default:
                var decoded: [String: ArchivedValue] = [:]
                for (name, index) in fields where name != "$class" {
                    switch plist.objects[index] {
                    case .uid(let reference): decoded[name] = try decode(reference, depth: depth + 1)
                    case .integer(let number): decoded[name] = .number(Double(number))
                    case .real(let number): decoded[name] = .number(number)
                    case .bool(let flag): decoded[name] = .number(flag ? 1 : 0)
                    case .data(let bytes): decoded[name] = .data(bytes)  // `encodeBytes`
                    default: throw .malformed("field '\(name.prefix(80))' is neither a reference, a number nor bytes")
                    }
                }
                return .object(className: className, fields: decoded)
            }
        }

        /// The objects a collection's `NS.objects` or `NS.keys` refers to (absent: none).
        private mutating func elements(_ field: Int?, depth: Int) throws(ItemDecodingError) -> [ArchivedValue] {
            guard let field else { return [] }
            guard case .array(let items) = plist.objects[field] else { throw .malformed("a collection's elements are not an array") }
            var elements: [ArchivedValue] = []
            for item in items {
                guard case .uid(let reference) = plist.objects[item] else { throw .malformed("a collection element is not a reference") }
                elements.append(try decode(reference, depth: depth + 1))
            }
            return elements
        }
    }
}

extension InputValidation.DocumentLimits {
    /// The limits a value another app stored is read with (keyed archives and JSON): 16 MiB,
    /// 64 levels, 100,000 objects (in the property list, and decoded, counting an object again
    /// each time it is referred to). Aliases do not apply.
    static let storedValue = InputValidation.DocumentLimits(maxBytes: 16 << 20, maxDepth: 64, maxNodes: 100_000, maxAliases: 0)
}

/// A value of a keyed archive, decoded: Foundation's value classes as Swift values, any other
/// allowed class as its class name and fields.
indirect enum ArchivedValue: Sendable, Hashable {
    case null
    /// A number or a Boolean (1 or 0).
    case number(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([ArchivedValue])
    case dictionary([String: ArchivedValue])
    case object(className: String, fields: [String: ArchivedValue])

    /// A short name of the kind, for messages (never the value).
    var kindName: String {
        switch self {
        case .null: "null"
        case .number: "a number"
        case .string: "a string"
        case .data: "data"
        case .date: "a date"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .object(let className, _): "an \(className)"
        }
    }

    /// The value under `key` of an object or a dictionary; nil when absent or null.
    subscript(key: String) -> ArchivedValue? {
        let value: ArchivedValue?
        switch self {
        case .object(_, let fields): value = fields[key]
        case .dictionary(let entries): value = entries[key]
        default: value = nil
        }
        if case .null? = value { return nil }
        return value
    }

    /// The string under `key`, nil when absent; another kind is refused, as secure coding does.
    func string(_ key: String) throws(ItemDecodingError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw .wrongType(key: key, expected: "a string", found: other.kindName)
        }
    }

    /// The date under `key`, nil when absent; another kind is refused.
    func date(_ key: String) throws(ItemDecodingError) -> Date? {
        switch self[key] {
        case nil: return nil
        case .date(let date)?: return date
        case let other?: throw .wrongType(key: key, expected: "a date", found: other.kindName)
        }
    }

    /// The object of `className` or the dictionary under `key`, nil when absent; another kind is
    /// refused.
    func object(_ key: String, className: String) throws(ItemDecodingError) -> ArchivedValue? {
        switch self[key] {
        case nil: return nil
        case .object(className, _)?: return self[key]
        case .dictionary? where className == "NSDictionary": return self[key]
        case let other?: throw .wrongType(key: key, expected: "an \(className)", found: other.kindName)
        }
    }
}

/// Why a value another app stored cannot be read; never carries the value (it may be a secret).
enum ItemDecodingError: Error, Sendable, Hashable {
    case tooLarge(bytes: Int, limit: Int)
    /// Not a binary property list, or not a keyed archive.
    case notAnArchive
    /// Not a JSON object.
    case notJSON
    case malformed(String)
    case referenceOutOfRange(count: Int)
    case tooManyObjects(count: Int, limit: Int)
    case tooDeep(limit: Int)
    case cycle
    case notAClass(reference: Int)
    case unexpectedClass(String)
    case wrongType(key: String, expected: String, found: String)

    /// What is wrong, for people: names no value.
    var reason: String {
        switch self {
        case .tooLarge(let bytes, let limit): "the value is \(bytes) bytes; the limit is \(limit)"
        case .notAnArchive: "the value is not an NSKeyedArchiver archive"
        case .notJSON: "the value is not a JSON object"
        case .malformed(let what): "the archive is malformed: \(what)"
        case .referenceOutOfRange(let count): "the archive refers to an object beyond its \(count.counted("object"))"
        case .tooManyObjects(let count, let limit): "the archive holds \(count) objects or more; the limit is \(limit)"
        case .tooDeep(let limit): "the archive nests objects more than \(limit) deep"
        case .cycle: "the archive's objects refer to themselves in a cycle"
        case .notAClass(let reference): "the archive's class record \(reference) is not a class"
        case .unexpectedClass(let name): "the archive holds an object of class '\(name.prefix(80))', which the reader does not allow"
        case .wrongType(let key, let expected, let found): "'\(key)' must be \(expected), but it is \(found)"
        }
    }
}
