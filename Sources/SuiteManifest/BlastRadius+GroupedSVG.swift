import SharedKeychain

extension BlastRadius {
    /// The SVG of a large suite: a row and a column per group of apps that share the same
    /// exposure, the groups' apps listed under the legend. Only blocks with a call are drawn
    /// (the background reads "none"), so the document grows with the groups and the exposed
    /// blocks, not with the pairs.
    func groupedSVG(_ groups: ExposureGroups) -> String {
        let count = groups.members.count
        let headers: [(name: String, size: String, first: String)] = groups.members.enumerated().map { index, members in
            let first = members.first.map { DisplayText(apps[$0].label).description } ?? ""
            return ("G\(index + 1)", members.count.counted("app"), first)
        }
        var blocks: [(row: Int, column: Int, calls: [DestructiveCall])] = []
        for row in 0..<count {
            for column in 0..<count { blocks.append((row, column, groups.calls(attacker: row, victim: column))) }
        }
        let longestLabel: Int = headers.map(\.first.count).max() ?? 0
        let layout = SVGLayout(appCount: count, longestLabel: longestLabel + " and 999 more".count)
        let maxCalls: Int = blocks.map(\.calls.count).max() ?? 0
        let rowHeight = layout.rowHeight(maxCalls: maxCalls)
        let gridWidth = Double(count) * layout.columnWidth
        let gridBottom = layout.gridTop + Double(count) * rowHeight
        let legendLines = callLegendLines(width: layout.legendCharacters)
        let groupLines: [[String]] = groups.members.enumerated().map { index, members in
            let names = members.map { DisplayText(apps[$0].displayName).description }.joined(separator: ", ")
            let lines = wrapped("G\(index + 1) (\(members.count.counted("app"))): \(names)", width: layout.legendCharacters)
            return lines.enumerated().map { $0 == 0 ? $1 : "      \($1)" }
        }
        let legendHeight = Double(legendLines.count) * 16
        let groupsTop: Double = gridBottom + 90 + legendHeight
        let groupLineCount: Int = groupLines.map(\.count).reduce(0, +)
        let height: Double = groupsTop + 50 + Double(groupLineCount) * 16
        let title = "Blast radius: " + (suiteName ?? manifest)
        let subtitle = isEmpty
            ? "no app can destroy another app's sign-in"
            : "\(cells.count) of \(pairCount.counted("pair")) exposed: the row's apps can destroy the column's apps' sign-in by the calls named"

        var out = svgHead(width: layout.width, height: height, title: title, subtitle: subtitle)
        out += """
            <text x="20" y="66" fill="#444">\(escape("\(apps.count) apps in \(count.counted("group")) that share the same exposure (listed below); a group's own cell: between different apps of it; empty: none"))</text>
            <text x="\(layout.gridLeft + gridWidth / 2)" y="\(layout.gridTop - 46)" \
            text-anchor="middle" font-weight="bold">victims (sign-in destroyed)</text>
            <text x="20" y="\(layout.gridTop - 12)" font-weight="bold">attackers (make the call)</text>
            <rect x="\(layout.gridLeft)" y="\(layout.gridTop)" width="\(gridWidth)" height="\(gridBottom - layout.gridTop)" fill="\(fill([]))" stroke="#999"/>

            """
        for (index, header) in headers.enumerated() {
            let x = layout.gridLeft + Double(index) * layout.columnWidth + layout.columnWidth / 2
            out += "<text x=\"\(x)\" y=\"\(layout.gridTop - 26)\" text-anchor=\"middle\">\(header.name)</text>\n"
            out += "<text x=\"\(x)\" y=\"\(layout.gridTop - 10)\" text-anchor=\"middle\" font-size=\"10\" fill=\"#666\">\(header.size)</text>\n"
            let y = layout.gridTop + Double(index) * rowHeight
            let more = groups.members[index].count > 1 ? " and \(groups.members[index].count - 1) more" : ""
            out += "<text x=\"20\" y=\"\(y + 20)\">\(header.name)  \(header.size)</text>\n"
            out += "<text x=\"20\" y=\"\(y + 34)\" font-size=\"10\" fill=\"#666\">\(escape(header.first + more))</text>\n"
        }
        for (row, column, calls) in blocks {
            let x = layout.gridLeft + Double(column) * layout.columnWidth
            let y = layout.gridTop + Double(row) * rowHeight
            let frame = "x=\"\(x)\" y=\"\(y)\" width=\"\(layout.columnWidth)\" height=\"\(rowHeight)\" stroke=\"#999\""
            let center: Double = x + layout.columnWidth / 2
            let textTop: Double = y + 22
            if row == column, groups.members[row].count == 1 {
                out += "<g class=\"self\"><rect \(frame) fill=\"#e6e6e6\"/>"
                out += "<text x=\"\(center)\" y=\"\(textTop)\" text-anchor=\"middle\" fill=\"#777\">self (not counted)</text></g>\n"
            } else if !calls.isEmpty {
                out += "<g class=\"block\" data-attacker-group=\"G\(row + 1)\" data-victim-group=\"G\(column + 1)\">"
                out += "<rect \(frame) fill=\"\(fill(calls))\"/>\(callTexts(calls, x: x, y: y))</g>\n"
            }
        }
        out += "<text x=\"20\" y=\"\(gridBottom + 36)\" font-weight=\"bold\">Calls</text>\n"
        for (index, line) in legendLines.enumerated() {
            out += "<text x=\"20\" y=\"\(gridBottom + 56 + Double(index) * 16)\" xml:space=\"preserve\">\(escape(line))</text>\n"
        }
        out += "<text x=\"20\" y=\"\(groupsTop)\" font-weight=\"bold\">Groups</text>\n"
        var line = 0
        for (index, lines) in groupLines.enumerated() {
            let bundleIDs = groups.members[index].map { escape(apps[$0].bundleID) }.joined(separator: " ")
            out += "<g class=\"group\" data-group=\"G\(index + 1)\" data-apps=\"\(bundleIDs)\">"
            for text in lines {
                out += "<text x=\"20\" y=\"\(groupsTop + 20 + Double(line) * 16)\" xml:space=\"preserve\">\(escape(text))</text>"
                line += 1
            }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }
}
