import Foundation
@testable import KeychainStorage
import Testing

/// Output written element by element is byte for byte Foundation's encoding of the whole
/// (issue 32: `item list --json` and `snapshot` of 10,000 items never hold it whole).
@Suite("A pretty JSON array written element by element")
struct PrettyJSONArrayTests {
    struct Element: Codable, Equatable {
        var name: String
        var values: [Int]
        var nested: [String: [String]]
        var when: Date
    }

    struct Document: Codable {
        var before = "a/b"
        var items: [Element]
        var zafter = 7
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func elements(_ count: Int) -> [Element] {
        (0..<count).map { index in
            Element(name: "line\n\(index) \"quoted\"", values: index % 3 == 0 ? [] : [index, -index],
                    nested: index % 2 == 0 ? [:] : ["k": [], "l": ["x\(index)"]], when: Date(timeIntervalSince1970: Double(index)))
        }
    }

    static func written(_ elements: [Element], depth: Int = 0) throws -> (Data, chunks: Int) {
        var output = Data()
        var chunks = 0
        try PrettyJSONArray.write(elements, depth: depth, encoder: encoder()) { chunk in
            output += chunk
            chunks += 1
        }
        return (output, chunks)
    }

    @Test("a whole document: the bytes of JSONEncoder's, empty, one and many elements", arguments: [0, 1, 2, 7])
    func document(_ count: Int) throws {
        let elements = Self.elements(count)
        #expect(try Self.written(elements).0 == Self.encoder().encode(elements))
    }

    @Test("an array inside an object, indented to its depth, as in the whole document's encoding", arguments: [0, 3])
    func nested(_ count: Int) throws {
        let whole = String(decoding: try Self.encoder().encode(Document(items: Self.elements(count))), as: UTF8.self)
        let frame = String(decoding: try Self.encoder().encode(Document(items: [])), as: UTF8.self)
        let array = String(decoding: try Self.written(Self.elements(count), depth: 1).0, as: UTF8.self)
        #expect(frame.replacingOccurrences(of: "[\n\n  ]", with: array) == whole)
    }

    @Test("a big array goes out in chunks of about 64 KB, which together are the whole encoding")
    func chunks() throws {
        let elements = Self.elements(2_000)
        let (output, chunks) = try Self.written(elements)
        #expect(output == (try Self.encoder().encode(elements)))
        #expect(chunks > 2)
        #expect(chunks <= output.count / PrettyJSONArray.chunkSize + 1)
    }
}
