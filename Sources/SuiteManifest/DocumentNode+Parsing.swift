import Foundation
import SharedKeychain

internal import Yams

/// YAML held to ``InputValidation/DocumentLimits`` before anything is expanded: a "billion
/// laughs" of a few hundred bytes (anchors whose aliases repeat each other) composes cheaply,
/// because an alias shares its anchor's node, but expands to billions of values the moment a
/// reader walks it. This walk measures the expanded size in time linear in the document, by
/// remembering each anchor's size, and refuses the document before any reader expands it.
public enum YAMLLimits {
    /// Refuses `data` when it is not UTF-8 YAML within `limits`; the message says which limit.
    public static func check(_ data: Data, limits: InputValidation.DocumentLimits = .standard) throws(DocumentSyntaxError) {
        _ = try DocumentNode.composeYAML(data, limits: limits)
    }
}

extension DocumentNode {
    /// Parses YAML text; `nil` for an empty document.
    ///
    /// Scalars keep the text as written, so `team_id: 0123456789` is not read as an octal number.
    static func parseYAML(_ data: Data, limits: InputValidation.DocumentLimits = .standard) throws(DocumentSyntaxError) -> DocumentNode? {
        guard let root = try composeYAML(data, limits: limits) else { return nil }
        return try DocumentNode(yaml: root)
    }

    /// The document's root node, checked against `limits` (size, UTF-8, nesting, aliases and
    /// expanded size) while the parser's anchors are still alive.
    static func composeYAML(_ data: Data, limits: InputValidation.DocumentLimits) throws(DocumentSyntaxError) -> Node? {
        guard data.count <= limits.maxBytes else {
            throw DocumentSyntaxError(reason: "the document is \(data.count) bytes; the limit is \(limits.maxBytes)")
        }
        if let offset = InputValidation.firstInvalidUTF8Offset(data) {
            throw DocumentSyntaxError(reason: "not UTF-8 text (bad byte at offset \(offset))")
        }
        let parser: Parser
        let root: Node?
        do {
            parser = try Parser(yaml: String(decoding: data, as: UTF8.self))
            root = try parser.singleRoot()
        } catch let error as YamlError {
            throw DocumentSyntaxError(reason: Self.describe(error))
        } catch {
            throw DocumentSyntaxError(reason: Self.oneLine("\(error)"))
        }
        guard let root else { return nil }
        // Anchors are weak references the parser keeps alive: measure while it lives.
        try withExtendedLifetime(parser) { () throws(DocumentSyntaxError) in
            var budget = ExpansionBudget(limits: limits)
            _ = try budget.measure(root, depth: 1)
        }
        return root
    }

    /// Counts the nodes a document expands to, visiting each anchored node once.
    private struct ExpansionBudget {
        let limits: InputValidation.DocumentLimits
        var nodes = 0
        var aliases = 0
        /// Expanded size of each anchored node seen so far.
        var sizes: [ObjectIdentifier: Int] = [:]

        mutating func measure(_ node: Node, depth: Int) throws(DocumentSyntaxError) -> Int {
            let line = node.mark?.line ?? 0
            guard depth <= limits.maxDepth else {
                throw DocumentSyntaxError(reason: "line \(line): nested more than \(limits.maxDepth) levels deep; refused")
            }
            let anchor = Self.anchor(of: node).map(ObjectIdentifier.init)
            if let anchor, let size = sizes[anchor] {
                aliases += 1
                guard aliases <= limits.maxAliases else {
                    throw DocumentSyntaxError(reason: "line \(line): more than \(limits.maxAliases) YAML aliases; refused")
                }
                try add(size, line: line)
                return size
            }
            var size = 1
            try add(1, line: line)
            switch node {
            case .scalar, .alias:
                break
            case .sequence(let sequence):
                for item in sequence { size += try measure(item, depth: depth + 1) }
            case .mapping(let mapping):
                for (key, value) in mapping {
                    size += try measure(key, depth: depth + 1)
                    size += try measure(value, depth: depth + 1)
                }
            }
            if let anchor { sizes[anchor] = size }
            return size
        }

        private mutating func add(_ count: Int, line: Int) throws(DocumentSyntaxError) {
            nodes += count
            guard nodes <= limits.maxNodes else {
                throw DocumentSyntaxError(
                    reason: "line \(line): the document expands to more than \(limits.maxNodes) values (YAML aliases repeating each other?); refused before expanding it")
            }
        }

        private static func anchor(of node: Node) -> Anchor? {
            switch node {
            case .scalar(let scalar): scalar.anchor
            case .sequence(let sequence): sequence.anchor
            case .mapping(let mapping): mapping.anchor
            case .alias: nil
            }
        }
    }

    private init(yaml node: Node) throws(DocumentSyntaxError) {
        let line = node.mark?.line
        switch node {
        case .scalar(let scalar):
            self.init(Self.value(of: scalar, tag: Tag.Name(rawValue: node.tag.description)), line: line)
        case .sequence(let sequence):
            var items: [DocumentNode] = []
            for item in sequence { items.append(try DocumentNode(yaml: item)) }
            self.init(.list(items), line: line)
        case .mapping(let mapping):
            var entries: [(key: String, value: DocumentNode)] = []
            for (key, value) in mapping {
                guard let name = key.scalar?.string else {
                    throw DocumentSyntaxError(reason: "line \(key.mark?.line ?? 0): mapping keys must be plain text")
                }
                entries.append((name, try DocumentNode(yaml: value)))
            }
            self.init(.dictionary(entries), line: line)
        case .alias:
            // The parser resolves aliases while composing; a bare alias node means it did not.
            throw DocumentSyntaxError(reason: "line \(line ?? 0): unresolved YAML alias")
        }
    }

    private static func value(of scalar: Node.Scalar, tag: Tag.Name) -> Value {
        switch tag {
        case .null: return .null
        case .bool: return Node.scalar(scalar).bool.map(Value.boolean) ?? .string(scalar.string)
        case .int, .float: return .number(scalar.string)
        default: return .string(scalar.string)
        }
    }

    /// One line with the problem and where it is; Yams' own text spans lines and puts the
    /// problem after its context.
    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return "line \(mark.line), column \(mark.column): \(problem)\(during)"
        case .duplicatedKeysInMapping(let duplicates, let context):
            return "line \(context.mark.line): duplicate key \(duplicates.sorted().map { "'\(DisplayText($0))'" }.joined(separator: ", "))"
        default:
            return oneLine("\(error)")
        }
    }

    /// Yams' messages end with a multi-line snippet of the source; keep the first line.
    static func oneLine(_ message: String) -> String {
        message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
    }
}

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

extension DocumentNode {
    /// Parses an XML or binary property list.
    static func parsePropertyList(_ data: Data) throws(DocumentSyntaxError) -> DocumentNode {
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw DocumentSyntaxError(reason: "not a property list (\((error as NSError).localizedDescription))")
        }
        do { try InputValidation.checkShape(of: plist, field: "the property list") } catch {
            throw DocumentSyntaxError(reason: error.message)
        }
        return DocumentNode(propertyList: plist)
    }

    private init(propertyList value: Any) {
        switch value {
        case let string as String:
            self.init(.string(string))
        case let array as [Any]:
            self.init(.list(array.map(DocumentNode.init(propertyList:))))
        case let dictionary as [String: Any]:
            let entries = dictionary.keys.sorted().compactMap { key in
                dictionary[key].map { (key: key, value: DocumentNode(propertyList: $0)) }
            }
            self.init(.dictionary(entries))
        case let data as Data:
            self.init(.other("data (\(data.count) bytes)"))
        case is Date:
            self.init(.other("a date"))
        case let bool as Bool:
            self.init(.boolean(bool))
        case let number as NSNumber:
            self.init(.number(number.stringValue))
        default:
            self.init(.other("\(type(of: value))"))
        }
    }
}
