import Foundation

/// Checks on untrusted input, made before anything is written: numbers from options and files,
/// text that must be UTF-8, and the size and shape of documents (YAML, JSON, property lists).
///
/// Every failure is errSecParam (``KeychainError/invalidParameter(_:)``) with a message that names
/// the field and what is allowed, so a script author can fix the call without reading code.
public enum InputValidation {
    // MARK: Numbers

    /// `value` when it is finite and inside `range`; else errSecParam naming `field` and the range.
    ///
    /// - Parameters:
    ///   - value: the number given.
    ///   - field: how the user wrote it (`--timeout`, `steps[3].wait`).
    ///   - range: the values allowed.
    ///   - unit: appended to the range in the message (`seconds`, `bytes`), or nil.
    @discardableResult
    public static func check(
        _ value: Double, _ field: String, in range: ClosedRange<Double>, unit: String? = nil
    ) throws(KeychainError) -> Double {
        guard value.isFinite, range.contains(value) else {
            throw .invalidParameter("\(field) must be \(describe(range, unit: unit)); got \(format(value))")
        }
        return value
    }

    /// `value` when it is inside `range`; else errSecParam naming `field` and the range.
    @discardableResult
    public static func check<Number: BinaryInteger>(
        _ value: Number, _ field: String, in range: ClosedRange<Number>, unit: String? = nil
    ) throws(KeychainError) -> Number {
        guard range.contains(value) else {
            let bounds = "from \(range.lowerBound) to \(range.upperBound)" + (unit.map { " \($0)" } ?? "")
            throw .invalidParameter("\(field) must be a whole number \(bounds); got \(value)")
        }
        return value
    }

    private static func describe(_ range: ClosedRange<Double>, unit: String?) -> String {
        "a number from \(format(range.lowerBound)) to \(format(range.upperBound))" + (unit.map { " \($0)" } ?? "")
    }

    private static func format(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    // MARK: Text

    /// `bytes` as a String when they are valid UTF-8; else errSecParam naming `field` and the
    /// offset of the first bad byte. Decoding with replacement would silently map different byte
    /// strings to one item, so nothing here ever repairs.
    public static func utf8String(_ bytes: some Collection<UInt8>, field: String) throws(KeychainError) -> String {
        if let offset = firstInvalidUTF8Offset(bytes) {
            throw .invalidParameter("\(field) is not valid UTF-8 (bad byte at offset \(offset)); nothing was written")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The offset of the first byte that is not part of valid UTF-8, or nil when all are.
    public static func firstInvalidUTF8Offset(_ bytes: some Collection<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    // MARK: Documents

    /// The limits every document the tool reads is held to, checked before it is expanded.
    public struct DocumentLimits: Sendable, Hashable {
        /// Bytes of the document itself.
        public var maxBytes: Int
        /// Depth of nested mappings and sequences.
        public var maxDepth: Int
        /// Nodes after aliases are expanded: a YAML "billion laughs" of a few hundred bytes
        /// expands to billions, and is refused when the count passes this.
        public var maxNodes: Int
        /// YAML aliases (`*name`) in the document.
        public var maxAliases: Int

        public init(maxBytes: Int, maxDepth: Int, maxNodes: Int, maxAliases: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxNodes = maxNodes
            self.maxAliases = maxAliases
        }

        /// Manifests, scenarios, entitlements, Info.plists, policies and MSAL caches: 64 MiB
        /// (a cache of 10,000 accounts is about 35 MB), 64 levels, a million nodes, 1,000 aliases.
        public static let standard = DocumentLimits(maxBytes: 64 << 20, maxDepth: 64, maxNodes: 1_000_000, maxAliases: 1_000)
    }

    /// Reads a whole file, refusing one larger than `limits.maxBytes` before reading it.
    /// - Parameters:
    ///   - url: the file.
    ///   - field: how the user named the file (`--input`, `suite manifest`).
    ///   - limits: the limits the file is held to.
    public static func readDocument(
        at url: URL, field: String, limits: DocumentLimits = .standard
    ) throws(KeychainError) -> Data {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw .invalidParameter("cannot read \(field) '\(path)': \((error as NSError).localizedDescription)")
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            throw .invalidParameter("cannot read \(field) '\(path)': it is a directory")
        }
        if let size = attributes[.size] as? Int, size > limits.maxBytes {
            throw .invalidParameter("\(field) '\(path)' is \(size) bytes; the limit is \(limits.maxBytes)")
        }
        do { return try Data(contentsOf: url) } catch {
            throw .invalidParameter("cannot read \(field) '\(path)': \((error as NSError).localizedDescription)")
        }
    }

    /// A decoding error as a person reads it: where (`at 'items.3.version': `) and what.
    public static func describe(decodingError error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            let detail = context.debugDescription.hasSuffix(".") ? String(context.debugDescription.dropLast()) : context.debugDescription
            return (path.isEmpty ? "" : "at '\(path)': ") + detail
        @unknown default:
            return "\(decoding)"
        }
    }

    /// Refuses `data` larger than `limits.maxBytes` (standard input, or bytes already in memory).
    public static func checkSize(_ data: Data, field: String, limits: DocumentLimits = .standard) throws(KeychainError) {
        guard data.count <= limits.maxBytes else {
            throw .invalidParameter("\(field) is \(data.count) bytes; the limit is \(limits.maxBytes)")
        }
    }

    /// Walks a parsed JSON or property-list value (Foundation's `Any` tree) and refuses one
    /// nested deeper than `limits.maxDepth` or holding more than `limits.maxNodes` values.
    public static func checkShape(of value: Any, field: String, limits: DocumentLimits = .standard) throws(KeychainError) {
        var nodes = 0
        var stack: [(value: Any, depth: Int)] = [(value, 1)]
        while let (current, depth) = stack.popLast() {
            nodes += 1
            guard nodes <= limits.maxNodes else {
                throw .invalidParameter("\(field) has more than \(limits.maxNodes) values; refused")
            }
            guard depth <= limits.maxDepth else {
                throw .invalidParameter("\(field) is nested more than \(limits.maxDepth) levels deep; refused")
            }
            if let dictionary = current as? [String: Any] {
                stack.append(contentsOf: dictionary.values.map { ($0, depth + 1) })
            } else if let array = current as? [Any] {
                stack.append(contentsOf: array.map { ($0, depth + 1) })
            }
        }
    }
}

/// A length of time in a scenario file: `250ms`, `2s`, `1.5s`, `10m`, `2h`, or a bare number of
/// seconds.
public struct WrittenDuration: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The length in seconds.
    public let seconds: Double

    /// - Parameter seconds: not negative.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// The longest duration a file may give (`advance-clock` included): ten years.
    public static let longest = WrittenDuration(seconds: 315_360_000)
    /// The longest pause (`wait`, `every`, `delay`): a day.
    public static let longestPause = WrittenDuration(seconds: 86_400)

    private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]

    /// Parses `250ms`, `2s`, `10m`, `2h` or `1.5`; nil for anything else, a negative length, or
    /// one longer than ``longest``.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        // "ms" before "m" and "s": the longest suffix wins.
        for unit in Self.units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0,
            value * scale <= Self.longest.seconds
        else { return nil }
        seconds = value * scale
    }

    /// `250ms`, `2s`, `1.5s`, `2h`.
    public var description: String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    /// Reads a string (`250ms`) or a number of seconds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            guard number.isFinite, number >= 0, number <= Self.longest.seconds else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a duration must be from 0 to \(Self.longest) (\(Int(Self.longest.seconds)) seconds); got \(number)")
            }
            self.init(seconds: number)
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = WrittenDuration(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a duration from 0 to \(Self.longest); write 250ms, 2s, 10m, 2h or a number of seconds")
        }
        self = parsed
    }

    /// Writes the number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
}

extension Int {
    /// The count with its noun, plural unless it is one: `1.counted("item")` is "1 item",
    /// `3.counted("item")` "3 items". For the lines people read (reports, CLI output).
    public func counted(_ noun: String) -> String {
        "\(self) \(noun)\(self == 1 ? "" : "s")"
    }
}
