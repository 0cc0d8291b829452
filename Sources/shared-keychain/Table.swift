/// A plain text table with columns padded to their widest cell.
struct Table {
    let header: [String]
    let rows: [[String]]

    var rendered: String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        return ([header] + rows).map { row in
            zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingSuffixSpaces() + "\n"
        }.joined()
    }
}

extension String {
    fileprivate func trimmingSuffixSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

import Foundation
