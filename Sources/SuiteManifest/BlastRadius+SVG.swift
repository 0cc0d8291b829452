import Foundation
import SharedKeychain

extension BlastRadius {
    /// Up to this many apps, the SVG has a row and a column per app; beyond, per group of apps
    /// that share the same exposure, so a suite of hundreds of apps stays a readable page.
    public static let svgAppRowLimit = 12

    /// The matrix as a standalone SVG document: apps by apps (rows: the app making the call,
    /// columns: the app whose sign-in goes), each cell naming its calls and shaded by how many
    /// there are, the diagonal greyed out, and a legend of the calls below. A suite of more than
    /// 12 apps is drawn by groups of apps that share the same exposure, listed under the legend.
    public var svg: String {
        apps.count > Self.svgAppRowLimit ? groupedSVG(exposureGroups) : perAppSVG
    }

    private var perAppSVG: String {
        let layout = SVGLayout(appCount: apps.count, longestLabel: apps.map { DisplayText($0.label).description.count }.max() ?? 0)
        let rowHeight = layout.rowHeight(maxCalls: cells.map(\.ways.count).max() ?? 0)
        let gridBottom = layout.gridTop + Double(apps.count) * rowHeight
        let legendLines = callLegendLines(width: layout.legendCharacters)
        let height = gridBottom + 70 + Double(legendLines.count) * 16 + 20
        let title = "Blast radius: " + (suiteName ?? manifest)
        let subtitle = isEmpty
            ? "no app can destroy another app's sign-in"
            : "\(cells.count) of \(pairCount.counted("pair")) exposed: the row's app can destroy the column's app's sign-in by the calls named"

        var out = svgHead(width: layout.width, height: height, title: title, subtitle: subtitle)
        out += """
            <text x="\(layout.gridLeft + Double(apps.count) * layout.columnWidth / 2)" y="\(layout.gridTop - 46)" \
            text-anchor="middle" font-weight="bold">victim (sign-in destroyed)</text>
            <text x="20" y="\(layout.gridTop - 12)" font-weight="bold">attacker (makes the call)</text>

            """
        for (index, app) in apps.enumerated() {
            let x = layout.gridLeft + Double(index) * layout.columnWidth + layout.columnWidth / 2
            out += "<text x=\"\(x)\" y=\"\(layout.gridTop - 26)\" text-anchor=\"middle\">\(escape(app.label))</text>\n"
            out += "<text x=\"\(x)\" y=\"\(layout.gridTop - 10)\" text-anchor=\"middle\" font-size=\"10\" fill=\"#666\">\(escape(app.bundleID))</text>\n"
            let y = layout.gridTop + Double(index) * rowHeight
            out += "<text x=\"20\" y=\"\(y + 20)\">\(escape(app.label))</text>\n"
            out += "<text x=\"20\" y=\"\(y + 34)\" font-size=\"10\" fill=\"#666\">\(escape(app.bundleID))</text>\n"
        }
        for (row, attacker) in apps.enumerated() {
            for (column, victim) in apps.enumerated() {
                let x = layout.gridLeft + Double(column) * layout.columnWidth
                let y = layout.gridTop + Double(row) * rowHeight
                out += cell(attacker: attacker, victim: victim, x: x, y: y, width: layout.columnWidth, height: rowHeight)
            }
        }
        out += "<text x=\"20\" y=\"\(gridBottom + 36)\" font-weight=\"bold\">Calls</text>\n"
        for (index, line) in legendLines.enumerated() {
            out += "<text x=\"20\" y=\"\(gridBottom + 56 + Double(index) * 16)\" xml:space=\"preserve\">\(escape(line))</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    private func cell(attacker: App, victim: App, x: Double, y: Double, width: Double, height: Double) -> String {
        let frame = "x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" stroke=\"#999\""
        let center = x + width / 2
        guard attacker.bundleID != victim.bundleID else {
            return """
                <g class="self"><rect \(frame) fill="#e6e6e6"/>\
                <text x="\(center)" y="\(y + 22)" text-anchor="middle" fill="#777">self (not counted)</text></g>

                """
        }
        let calls = ways(attacker: attacker.bundleID, victim: victim.bundleID).map(\.call)
        var out = "<g class=\"cell\" data-attacker=\"\(escape(attacker.bundleID))\" data-victim=\"\(escape(victim.bundleID))\"><rect \(frame) fill=\"\(fill(calls))\"/>"
        if calls.isEmpty {
            out += "<text x=\"\(center)\" y=\"\(y + 22)\" text-anchor=\"middle\" fill=\"#4a7f4a\">none</text>"
        }
        return out + callTexts(calls, x: x, y: y) + "</g>\n"
    }

    /// Shaded by how many ways there are: none, some, most.
    func fill(_ calls: [DestructiveCall]) -> String {
        calls.isEmpty ? "#eef7ee" : calls.count < 3 ? "#fde9c9" : "#f7c6c0"
    }

    /// A cell's calls, one line each, for the cell whose top left corner is (`x`, `y`).
    func callTexts(_ calls: [DestructiveCall], x: Double, y: Double) -> String {
        calls.enumerated().map { index, call in
            "<text x=\"\(x + 10)\" y=\"\(y + 20 + Double(index) * 16)\" data-call=\"\(call.rawValue)\">\(call.code)  \(escape(call.api))</text>"
        }.joined()
    }

    /// The legend of the calls, wrapped to `width` characters, continuation lines indented.
    func callLegendLines(width: Int) -> [String] {
        DestructiveCall.allCases.flatMap { call in
            wrapped("\(call.code)  \(call.api): \(call.summary)", width: width).enumerated().map { ($0 == 0 ? "" : "      ") + $1 }
        }
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `text` as SVG character data or an attribute value: control characters (not allowed in
    /// XML) and bidi overrides as visible escapes and a long value cut (``DisplayText``), then
    /// XML's escapes.
    func escape(_ text: String) -> String {
        DisplayText(text).description.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The opening of both drawings: the document, its title and the subtitle under it.
    func svgHead(width: Double, height: Double, title: String, subtitle: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
        <title>\(escape(title))</title>
        <rect width="100%" height="100%" fill="white"/>
        <text x="20" y="28" font-size="16" font-weight="bold">\(escape(title))</text>
        <text x="20" y="48" fill="#444">\(escape(subtitle))</text>

        """
    }
}

/// Where the SVG matrix's parts go, from the number of rows (apps or groups) and the longest label.
struct SVGLayout {
    let appCount: Int
    let longestLabel: Int

    /// Wide enough for `3  ungrouped SecItemDelete` and for the column's label.
    var columnWidth: Double { max(190, Double(min(longestLabel, 40)) * 7 + 20) }
    var gridLeft: Double { 20 + max(180, Double(min(longestLabel, 40)) * 7 + 20) }
    let gridTop = 120.0
    var width: Double { max(gridLeft + Double(appCount) * columnWidth + 20, 820) }
    /// The legend's line length, for the width at about 6.5 pixels a character.
    var legendCharacters: Int { Int((width - 40) / 6.5) }

    /// Room for every call of the fullest cell, and for the row's two label lines.
    func rowHeight(maxCalls: Int) -> Double { max(44, 12 + Double(maxCalls) * 16) }
}
