import Foundation

/// A pretty-printed JSON array written element by element, byte for byte as Foundation's
/// `JSONEncoder` (`.prettyPrinted`) lays out the whole array, so a big output never exists whole
/// in memory: encoding 10,000 items at once built the encoder's tree of every value and then
/// the output in one growing buffer, six times the size of the output at its peak.
///
/// Each element is encoded on its own with the caller's encoder (its keys, dates and escaping)
/// and indented to its depth: Foundation indents two spaces a level, puts `[` and `]` on lines
/// of their own, separates elements with `,` and a newline, and writes an empty array as `[`,
/// an empty line and `]`. JSON strings hold no raw newline, so every newline of an encoded
/// element is one of the layout's.
public struct PrettyJSONArray {
    /// How deep the array sits: 0 for a whole document, 1 for a member of the top object.
    public let depth: Int
    private let encoder: JSONEncoder
    private let flush: (Data) throws -> Void
    private var pending = Data()
    private var count = 0

    /// Output is handed to `flush` in chunks of about this many bytes.
    static let chunkSize = 64 * 1024

    /// A writer of one array at `depth`; nothing is written until the first element or ``finish()``.
    ///
    /// - Parameters:
    ///   - depth: the array's nesting level in the document (0: the document itself).
    ///   - encoder: encodes each element; its `outputFormatting` must include `.prettyPrinted`.
    ///   - flush: receives the output in order, in chunks.
    public init(depth: Int = 0, encoder: JSONEncoder, flush: @escaping (Data) throws -> Void) {
        self.depth = depth
        self.encoder = encoder
        self.flush = flush
    }

    /// Writes every element of `elements`, then closes the array.
    ///
    /// - Parameters:
    ///   - elements: the array's elements, read one at a time.
    ///   - depth: the array's nesting level in the document (0: the document itself).
    ///   - encoder: encodes each element; its `outputFormatting` must include `.prettyPrinted`.
    ///   - flush: receives the output in order, in chunks.
    public static func write<Elements: Sequence>(
        _ elements: Elements, depth: Int = 0, encoder: JSONEncoder, to flush: (Data) throws -> Void
    ) throws where Elements.Element: Encodable {
        try withoutActuallyEscaping(flush) { flush in
            var array = PrettyJSONArray(depth: depth, encoder: encoder, flush: flush)
            for element in elements { try array.append(element) }
            try array.finish()
        }
    }

    /// Encodes `element` and adds it to the array.
    ///
    /// - Parameter element: the next element.
    public mutating func append(_ element: some Encodable) throws {
        let encoded = try encoder.encode(element)
        pending.append(contentsOf: count == 0 ? Array("[\n".utf8) : Array(",\n".utf8))
        pending.append(Data(repeating: UInt8(ascii: " "), count: 2 * (depth + 1)))
        Self.appendNested(encoded, depth: depth + 1, to: &pending)
        count += 1
        if pending.count >= Self.chunkSize { try flushPending() }
    }

    /// Closes the array (`]` at its depth) and hands over what is left.
    public mutating func finish() throws {
        if count == 0 { pending.append(contentsOf: Array("[\n".utf8)) }
        pending.append(UInt8(ascii: "\n"))
        pending.append(Data(repeating: UInt8(ascii: " "), count: 2 * depth))
        pending.append(UInt8(ascii: "]"))
        try flushPending()
    }

    /// Appends `encoded` (a value `JSONEncoder` pretty-printed on its own) to `output` as it
    /// stands at `depth` in a bigger document, its first line already indented: every line
    /// after the first indented by two spaces a level, except the empty line inside an empty
    /// array or object, which Foundation leaves empty.
    ///
    /// - Parameters:
    ///   - encoded: the value as the pretty encoder wrote it alone.
    ///   - depth: its nesting level in the bigger document.
    ///   - output: where it is appended.
    public static func appendNested(_ encoded: Data, depth: Int, to output: inout Data) {
        let indent = Data(repeating: UInt8(ascii: " "), count: 2 * depth)
        var start = encoded.startIndex
        while let newline = encoded[start...].firstIndex(of: UInt8(ascii: "\n")) {
            output.append(encoded[start...newline])
            start = newline + 1
            if start < encoded.endIndex, encoded[start] != UInt8(ascii: "\n") { output.append(indent) }
        }
        output.append(encoded[start...])
    }

    private mutating func flushPending() throws {
        guard !pending.isEmpty else { return }
        try flush(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
