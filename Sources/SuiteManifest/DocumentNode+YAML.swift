internal import Yams

extension DocumentNode {
    /// Parses YAML text; `nil` for an empty document.
    ///
    /// Scalars keep the text as written, so `team_id: 0123456789` is not read as an octal number.
    static func parseYAML(_ text: String) throws(DocumentSyntaxError) -> DocumentNode? {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let error as YamlError {
            throw DocumentSyntaxError(reason: Self.describe(error))
        } catch {
            throw DocumentSyntaxError(reason: Self.oneLine("\(error)"))
        }
        guard let root else { return nil }
        return try DocumentNode(yaml: root)
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
            return "line \(context.mark.line): duplicate key \(duplicates.sorted().map { "'\($0)'" }.joined(separator: ", "))"
        default:
            return oneLine("\(error)")
        }
    }

    /// Yams' messages end with a multi-line snippet of the source; keep the first line.
    static func oneLine(_ message: String) -> String {
        message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
    }
}
