import Foundation

/// The syntax a manifest file is written in: by its extension, else by its first character.
enum ManifestSyntax: Sendable {
    case yaml
    case json

    init(file: URL, data: Data) {
        switch file.pathExtension.lowercased() {
        case "json": self = .json
        case "yaml", "yml": self = .yaml
        default:
            // JSON documents open with an object or array; YAML manifests with a key or comment.
            let first = data.first { !Set(" \t\r\n".utf8).contains($0) }
            self = (first == UInt8(ascii: "{") || first == UInt8(ascii: "[")) ? .json : .yaml
        }
    }

    var name: String {
        switch self {
        case .yaml: "YAML"
        case .json: "JSON"
        }
    }

    func parse(_ data: Data) throws(DocumentSyntaxError) -> DocumentNode? {
        switch self {
        case .json:
            return try DocumentNode.parseJSON(data)
        case .yaml:
            return try DocumentNode.parseYAML(data)
        }
    }
}
