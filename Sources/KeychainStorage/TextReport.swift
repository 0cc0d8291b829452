import Foundation

/// A report with two views: its JSON, which is its encoding, and its text for people, rendered
/// beside it in the library that makes it. A front end prints every report by one rule, the
/// text or the JSON, and renders none itself.
public protocol TextReport: Encodable {
    /// The report for people: whole lines, each ending in a newline; what items, manifests and
    /// scenario files say escaped (``DisplayText``); never item data or tokens.
    var text: String { get }
}

/// A plain text table with columns padded to their widest cell, for the text view of reports.
/// Every cell is shown as ``DisplayText`` (escaped, cut at its limit): cells hold what items and
/// manifests say.
public struct TextTable: Sendable {
    public let header: [String]
    public let rows: [[String]]

    public init(header: [String], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }

    /// The table, one line per row after the header, trailing spaces trimmed.
    public var rendered: String {
        let cells = ([header] + rows).map { $0.map { DisplayText($0).description } }
        let widths = header.indices.map { column in
            cells.map { $0[column].count }.max() ?? 0
        }
        return cells.map { row in
            var line = zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }.joined()
    }

    /// `text` with every non-empty line indented by `count` spaces.
    public static func indent(_ text: String, by count: Int) -> String {
        let pad = String(repeating: " ", count: count)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : pad + $0 }.joined(separator: "\n")
    }
}
