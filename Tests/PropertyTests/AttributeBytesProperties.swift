import Foundation
import KeychainStorage
import PropertyBased
import Testing

/// The storage form of accounts and services (issue 22) is one to one: any bytes, and any
/// string, come back exactly; equal bytes give equal forms, different bytes different ones; a
/// string's form is the string itself unless it holds NUL or starts with the marker.
@Suite("Properties: the storage form of Data accounts")
struct AttributeBytesProperties {
    /// Bytes biased towards the hard cases: NUL, invalid UTF-8, the marker's own bytes.
    static let bytes = Gen.uint64(in: 0...UInt64.max).array(of: 0...12).map { words -> Data in
        var data = Data()
        for word in words {
            switch word % 5 {
            case 0: data.append(0)
            case 1: data.append(UInt8(truncatingIfNeeded: word >> 8) | 0x80)
            case 2: data.append(contentsOf: Array(AttributeBytes.marker.utf8))
            default: data.append(UInt8(truncatingIfNeeded: word >> 8) & 0x7F)
            }
        }
        return data
    }

    @Test func bytesAndStringsRoundTripAndStayApart() {
        SeededProperty.check("attribute bytes", count: 500, input: Self.bytes.array(of: 2...2)) { pair in
            let (first, second) = (pair[0], pair[1])
            let key = AttributeBytes.key(for: first)
            #expect(AttributeBytes.bytes(of: key) == first)
            #expect((AttributeBytes.key(for: second) == key) == (first == second))
            #expect(AttributeValue(key: key, isData: true) == .data(first))
            if let text = String(validating: first, as: UTF8.self) {
                // A string is the same key as its UTF-8, and comes back as the same string.
                #expect(AttributeBytes.key(for: text) == key)
                #expect(AttributeValue(key: key, isData: false) == .string(text))
                #expect((key == text) == (!text.contains("\0") && !text.hasPrefix(AttributeBytes.marker)))
            }
            // Messages never show the storage form of bytes.
            #expect(!AttributeBytes.shown(key).hasPrefix(AttributeBytes.marker))
        }
    }
}
