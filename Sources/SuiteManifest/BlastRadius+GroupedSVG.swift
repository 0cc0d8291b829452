extension BlastRadius {
    /// The SVG of a large suite: a row and a column per group of apps that share the same
    /// exposure, the groups' apps listed under the legend. Only blocks with a call are drawn
    /// (the background reads "none"), so the document grows with the groups and the exposed
    /// blocks, not with the pairs.
    func groupedSVG(_ groups: ExposureGroups) -> String {
        let count = groups.members.count
        let headers = groups.members.enumerated().map { index, members in
            (name: "G\(index + 1)", size: members.count.counted("app"),
             first: members.first.map { DisplayText(apps[$0].label).description } ?? "")
        }
        let blocks = (0..<count).flatMap { row in (0..<count).map { column in (row, column, groups.calls(attacker: row, victim: column)) } }
        let layout = SVGLayout(appCount: count, longestLabel: headers.map { $0.first.count + " and 999 more".count }.max() ?? 0)
        let rowHeight = layout.rowHeight(maxCalls: blocks.map(\.2.count).max() ?? 0)
        let gridWidth = Double(count) * layout.columnWidth
        let gridBottom = layout.gridTop + Double(count) * rowHeight
        let legendLines = callLegendLines(width: layout.legendCharacters)
        let groupLines = groups.members.enumerated().map { index, members in
            wrapped("G\(index + 1) (\(members.count.counted("app"))): "
                    + members.map { DisplayText(apps[$0].displayName).description }.joined(separator: ", "),
                    width: layout.legendCharacters).enumerated().map { ($0 == 0 ? "" : "      ") + $1 }
        }
        let groupsTop = gridBottom + 70 + Double(legendLines.count) * 16 + 20
        let height = groupsTop + 30 + Double(groupLines.map(\.count).reduce(0, +)) * 16 + 20
        let title = "Blast radius: " + (suiteName ?? manifest)
        let subtitle = isEmpty
            ? "no app can destroy another app's sign-in"
            : "\(cells.count) of \(pairCount.counted("pair")) exposed: the row's apps can destroy the column's apps' sign-in by the calls named"

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(layout.width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(layout.width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <title>\(escape(title))</title>
            <rect width="100%" height="100%" fill="white"/>
            <text x="20" y="28" font-size="16" font-weight="bold">\(escape(title))</text>
            <text x="20" y="48" fill="#444">\(escape(subtitle))</text>
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
            if row == column, groups.members[row].count == 1 {
                out += "<g class=\"self\"><rect \(frame) fill=\"#e6e6e6\"/>"
                    + "<text x=\"\(x + layout.columnWidth / 2)\" y=\"\(y + 22)\" text-anchor=\"middle\" fill=\"#777\">self (not counted)</text></g>\n"
            } else if !calls.isEmpty {
                out += "<g class=\"block\" data-attacker-group=\"G\(row + 1)\" data-victim-group=\"G\(column + 1)\">"
                    + "<rect \(frame) fill=\"\(fill(calls))\"/>\(callTexts(calls, x: x, y: y))</g>\n"
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
