import Foundation
import SharedKeychain

extension DocumentNode {
    /// Parses JSON text.
    static func parseJSON(_ data: Data, limits: InputValidation.DocumentLimits = .standard) throws(DocumentSyntaxError) -> DocumentNode {
        guard data.count <= limits.maxBytes else {
            throw DocumentSyntaxError(reason: "the document is \(data.count) bytes; the limit is \(limits.maxBytes)")
        }
        if let offset = InputValidation.firstInvalidUTF8Offset(data) {
            throw DocumentSyntaxError(reason: "not UTF-8 text (bad byte at offset \(offset))")
        }
        let tree: Any
        do { tree = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw DocumentSyntaxError(reason: Self.describeJSONError(error, in: data))
        }
        do { try InputValidation.checkShape(of: tree, field: "the document", limits: limits) } catch {
            throw DocumentSyntaxError(reason: error.message)
        }
        do { return try JSONDecoder().decode(JSONTree.self, from: data).node } catch {
            throw DocumentSyntaxError(reason: Self.describeJSONError(error, in: data))
        }
    }

    /// JSONDecoder only says the data "was not valid JSON"; JSONSerialization says where
    /// ("Invalid value around character 11.").
    private static func describeJSONError(_ error: any Error, in data: Data) -> String {
        do { _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            if let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
        }
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }
}

/// A JSON value decoded without a schema. JSON reports no lines, and its objects no order, so
/// keys are sorted to keep error messages stable.
private struct JSONTree: Decodable {
    let node: DocumentNode

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var entries: [(key: String, value: DocumentNode)] = []
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                entries.append((key.stringValue, try object.decode(JSONTree.self, forKey: key).node))
            }
            node = DocumentNode(.dictionary(entries))
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [DocumentNode] = []
            while !array.isAtEnd { items.append(try array.decode(JSONTree.self).node) }
            node = DocumentNode(.list(items))
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                node = DocumentNode(.null)
            } else if let bool = try? value.decode(Bool.self) {
                node = DocumentNode(.boolean(bool))
            } else if let string = try? value.decode(String.self) {
                node = DocumentNode(.string(string))
            } else if let integer = try? value.decode(Int.self) {
                node = DocumentNode(.number(String(integer)))
            } else {
                node = DocumentNode(.number(String(try value.decode(Double.self))))
            }
        }
    }
}
