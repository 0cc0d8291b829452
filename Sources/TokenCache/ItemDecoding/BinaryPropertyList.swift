import Foundation
import SharedKeychain

/// A binary property list (`bplist00`) read into a flat table of objects, every reference an
/// index checked against the table, nothing expanded.
///
/// Why not `PropertyListSerialization`: it expands shared references into a tree, so a few
/// hundred bytes whose objects each refer twice to the next take exponential time (measured on
/// Linux: 3.5 s at 20 levels, over a minute at 25), and the UIDs of a keyed archive come back as
/// a private class whose number Swift cannot read. Here each object is read once, and what
/// refers to what is left to the reader (``KeyedArchive``), which walks it with limits.
struct BinaryPropertyList {
    /// One object of the table; containers hold indexes into ``objects``.
    enum Object {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        /// Seconds since 2001-01-01 (`CFAbsoluteTime`).
        case date(Double)
        case data(Data)
        case string(String)
        /// A keyed archive's reference into `$objects`.
        case uid(Int)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    let objects: [Object]
    /// The index of the top object.
    let top: Int

    /// The format's magic and version.
    private static let header = Array("bplist00".utf8)
    /// The trailer: 6 unused bytes, offset size, reference size, object count, top, table offset.
    private static let trailerSize = 32

    /// Reads `data`, refusing anything out of bounds or over `limits`.
    init(_ data: Data, limits: InputValidation.DocumentLimits) throws(ItemDecodingError) {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let bytes = [UInt8](data)
        guard bytes.count >= Self.header.count + Self.trailerSize + 2, bytes.starts(with: Self.header) else { throw .notAnArchive }
        var reader = Reader(bytes: bytes)
        let trailer = bytes.count - Self.trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let count = reader.unsigned(at: trailer + 8, size: 8), let top = reader.unsigned(at: trailer + 16, size: 8),
              let tableOffset = reader.unsigned(at: trailer + 24, size: 8)
        else { throw .malformed("its trailer is out of range") }
        guard count >= 1 else { throw .malformed("it holds no object") }
        guard count <= limits.maxNodes else { throw .tooManyObjects(count: count, limit: limits.maxNodes) }
        guard top < count else { throw .referenceOutOfRange(count: count) }
        guard tableOffset >= Self.header.count, tableOffset <= trailer, (trailer - tableOffset) / offsetSize >= count else {
            throw .malformed("its offset table is out of range")
        }
        reader.end = tableOffset
        reader.referenceSize = referenceSize
        reader.count = count
        var objects: [Object] = []
        objects.reserveCapacity(count)
        for index in 0..<count {
            guard let offset = reader.unsigned(at: tableOffset + index * offsetSize, size: offsetSize),
                  offset >= Self.header.count, offset < tableOffset
            else { throw .malformed("object \(index) starts out of range") }
            objects.append(try reader.object(at: offset))
        }
        self.objects = objects
        self.top = top
    }

    /// Reads objects between the header and the offset table.
    private struct Reader {
        let bytes: [UInt8]
        var end = 0
        var referenceSize = 1
        var count = 0

        /// A big-endian unsigned number of `size` bytes at `offset`, when it is in the data and
        /// fits an Int.
        func unsigned(at offset: Int, size: Int) -> Int? {
            guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        /// `length` bytes at `offset`, when they end before the offset table.
        func slice(_ offset: Int, _ length: Int) throws(ItemDecodingError) -> ArraySlice<UInt8> {
            guard length >= 0, offset <= end, length <= end - offset else { throw .malformed("an object runs past the end of the data") }
            return bytes[offset..<(offset + length)]
        }

        /// A container's or a string's length: the marker's low nibble, or an integer after it.
        func length(_ nibble: Int, after offset: Int) throws(ItemDecodingError) -> (length: Int, start: Int) {
            guard nibble == 0xF else { return (nibble, offset + 1) }
            let marker = try slice(offset + 1, 1).first ?? 0
            let size = 1 << Int(marker & 0x0F)
            guard marker >> 4 == 0x1, size <= 8, let length = unsigned(at: offset + 2, size: size), length <= end else {
                throw .malformed("a length is not a valid integer")
            }
            return (length, offset + 2 + size)
        }

        /// `count` references starting at `offset`, each checked against the table.
        func references(_ count: Int, at offset: Int) throws(ItemDecodingError) -> [Int] {
            guard count <= (end - offset) / referenceSize else { throw .malformed("a container runs past the end of the data") }
            var references: [Int] = []
            references.reserveCapacity(count)
            for index in 0..<count {
                guard let reference = unsigned(at: offset + index * referenceSize, size: referenceSize) else {
                    throw .malformed("a reference runs past the end of the data")
                }
                guard reference < self.count else { throw .referenceOutOfRange(count: self.count) }
                references.append(reference)
            }
            return references
        }

        func object(at offset: Int) throws(ItemDecodingError) -> Object {
            guard let marker = try slice(offset, 1).first else { throw .malformed("an object is empty") }
            let nibble = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch nibble {
                case 0x0: return .null
                case 0x8: return .bool(false)
                case 0x9: return .bool(true)
                default: throw .malformed("marker \(marker) is not a known object")
                }
            case 0x1:
                guard nibble <= 3 else { throw .malformed("an integer is wider than 8 bytes") }
                let value = try slice(offset + 1, 1 << nibble).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return .integer(nibble == 3 ? Int64(bitPattern: value) : Int64(value))
            case 0x2, 0x3:
                guard nibble == 2 || nibble == 3, marker >> 4 == 0x2 || nibble == 3 else { throw .malformed("a real or date has a bad width") }
                let value = try slice(offset + 1, 1 << nibble).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let real = nibble == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: value))) : Double(bitPattern: value)
                return marker >> 4 == 0x2 ? .real(real) : .date(real)
            case 0x4:
                let (length, start) = try length(nibble, after: offset)
                return .data(Data(try slice(start, length)))
            case 0x5:
                let (length, start) = try length(nibble, after: offset)
                return .string(String(decoding: try slice(start, length), as: UTF8.self))
            case 0x6:
                let (length, start) = try length(nibble, after: offset)
                guard length <= end / 2 else { throw .malformed("a string runs past the end of the data") }
                let units = try slice(start, length * 2)
                let utf16 = stride(from: units.startIndex, to: units.endIndex, by: 2).map { UInt16(units[$0]) << 8 | UInt16(units[$0 + 1]) }
                return .string(String(decoding: utf16, as: UTF16.self))
            case 0x8:
                guard nibble < 8, offset + 1 + nibble < end, let uid = unsigned(at: offset + 1, size: nibble + 1) else {
                    throw .malformed("a UID runs past the end of the data")
                }
                return .uid(uid)
            case 0xA, 0xC:
                let (length, start) = try length(nibble, after: offset)
                return .array(try references(length, at: start))
            case 0xD:
                let (length, start) = try length(nibble, after: offset)
                guard length <= (end - start) / (2 * referenceSize) else { throw .malformed("a dictionary runs past the end of the data") }
                return .dictionary(keys: try references(length, at: start), values: try references(length, at: start + length * referenceSize))
            default:
                throw .malformed("marker \(marker) is not a known object")
            }
        }
    }
}
