import Foundation

/// An SVG chart of throughput and p99 latency against the number of simulated apps: two
/// panels side by side, one line each, with labelled points.
public struct LoadChart: Sendable {
    public let reports: [LoadReport]

    public init(reports: [LoadReport]) {
        self.reports = reports.sorted { $0.configuration.apps < $1.configuration.apps }
    }

    public var svg: String {
        let width = 900.0, height = 360.0
        let title = reports.first.map { "\($0.backend), \($0.mode.rawValue), mix \($0.configuration.mix)" } ?? ""
        var body = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(width / 2)" y="20" text-anchor="middle" font-size="14">SharedKeychain load: \(escape(title))</text>

            """
        body += panel(x: 60, title: "throughput (calls/s)", values: reports.map(\.throughput), color: "#1f77b4")
        body += panel(x: 510, title: "p99 latency (ms)", values: reports.map { $0.overall.p99 / 1000 }, color: "#d62728")
        body += "</svg>\n"
        return body
    }

    private func panel(x: Double, title: String, values: [Double], color: String) -> String {
        let left = x, top = 50.0, plotWidth = 360.0, plotHeight = 250.0
        let apps = reports.map { Double($0.configuration.apps) }
        let maxX = max(apps.max() ?? 1, 1), maxY = max((values.max() ?? 1) * 1.15, 1e-9)
        func px(_ value: Double) -> Double { left + (maxX > 1 ? (value - 1) / (maxX - 1) : 0.5) * plotWidth }
        func py(_ value: Double) -> Double { top + plotHeight - value / maxY * plotHeight }
        var out = """
            <text x="\(left + plotWidth / 2)" y="\(top - 10)" text-anchor="middle">\(title)</text>
            <line x1="\(left)" y1="\(top + plotHeight)" x2="\(left + plotWidth)" y2="\(top + plotHeight)" stroke="black"/>
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotHeight)" stroke="black"/>
            <text x="\(left + plotWidth / 2)" y="\(top + plotHeight + 35)" text-anchor="middle">simulated apps</text>

            """
        for tick in 0...4 {
            let value = maxY * Double(tick) / 4
            out += "<text x=\"\(left - 6)\" y=\"\(py(value) + 4)\" text-anchor=\"end\">\(format(value))</text>\n"
            out += "<line x1=\"\(left)\" y1=\"\(py(value))\" x2=\"\(left + plotWidth)\" y2=\"\(py(value))\" stroke=\"#ddd\"/>\n"
        }
        let points = zip(apps, values).map { "\(px($0)),\(py($1))" }.joined(separator: " ")
        out += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
        for (app, value) in zip(apps, values) {
            out += "<circle cx=\"\(px(app))\" cy=\"\(py(value))\" r=\"4\" fill=\"\(color)\"/>\n"
            out += "<text x=\"\(px(app))\" y=\"\(py(value) - 8)\" text-anchor=\"middle\">\(format(value))</text>\n"
            out += "<text x=\"\(px(app))\" y=\"\(top + plotHeight + 16)\" text-anchor=\"middle\">\(Int(app))</text>\n"
        }
        return out
    }

    private func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
