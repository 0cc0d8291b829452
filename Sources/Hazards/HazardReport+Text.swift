import Foundation
import Mitigations
import SharedKeychain

/// A hazard run as text: what a device shows, then what only the emulator shows (losses by
/// provenance, audit trail), the result and the limits. Reports hold no secrets, so neither does
/// this. Their sentences may quote what the group's items say, so each is escaped (``DisplayText``).
extension HazardReport: TextReport {
    public var text: String {
        HazardReportText.header(hazard, summary: Hazard(rawValue: hazard)?.summary, store: store) + "\n" + HazardReportText.body(self)
    }
}

/// Several runs of one hazard as text: each run, then their metrics side by side.
extension HazardComparison: TextReport {
    public var text: String { HazardReportText.comparison(self) }
}

/// The parts of a hazard report's text.
enum HazardReportText {
    static func header(_ hazard: String, summary: String?, store: String) -> String {
        "hazard \(hazard)" + (summary.map { ": \($0)" } ?? "") + "\nstore: \(store)\n"
    }

    static func title(_ variant: HazardVariant) -> String {
        switch variant {
        case .unmitigated: "UNMITIGATED (Keychain Services and MSAL as they ship)"
        case .deployable: "DEPLOYABLE FIX"
        case .whatIf: "WHAT-IF"
        }
    }

    static func body(_ report: HazardReport) -> String {
        var text = title(report.variant) + "\n"
        for mitigation in report.mitigations {
            text += "  mitigation: \(mitigation.name) [\(mitigation.label)]\n"
        }
        text += "  group\(report.groups.count == 1 ? "" : "s"): \(DisplayText(report.groups.joined(separator: ", ")))\n"
        text += "  what a device shows:\n"
        for (index, step) in report.deviceView.enumerated() {
            text += "    \(index + 1). \(DisplayText(step, limit: .max))\n"
        }
        let emulator = report.emulatorView
        text += "  what only the emulator shows (\(emulator.label)):\n"
        for line in emulator.lines {
            text += "    - \(DisplayText(line, limit: .max))\n"
        }
        if emulator.losses.isEmpty {
            text += "    lost (by the emulator's provenance): nothing\n"
        } else {
            text += "    lost (by the emulator's provenance):\n"
            let rows = emulator.losses.map { [$0.app, "\($0.lost) \($0.lost == 1 && $0.unit.hasSuffix("s") ? String($0.unit.dropLast()) : $0.unit)", $0.causedBy.joined(separator: ", ")] }
            text += TextTable.indent(TextTable(header: ["APP", "LOST", "CAUSED BY"], rows: rows).rendered, by: 6)
        }
        if !emulator.audit.isEmpty {
            text += "    audit journal:\n"
            for entry in emulator.audit { text += "      \(entry)\n" }
        }
        text += "  result: \(DisplayText(report.verdict, limit: .max))\n"
        if !report.limits.isEmpty {
            text += "  not prevented:\n"
            for limit in report.limits { text += "    - \(DisplayText(limit, limit: .max))\n" }
        }
        return text
    }

    static func comparison(_ comparison: HazardComparison) -> String {
        var text = header(comparison.hazard.rawValue, summary: comparison.hazard.summary, store: comparison.runs.first?.store ?? "") + "\n"
        text += comparison.runs.map(body).joined(separator: "\n") + "\n"
        var names: [String] = []
        for metric in comparison.runs.flatMap(\.metrics) where !names.contains(metric.name) {
            names.append(metric.name)
        }
        let rows = names.map { name in
            [name] + comparison.runs.map { $0.metric(name).map(String.init) ?? "-" }
        }
        let columns = comparison.runs.map { report in
            switch report.variant {
            case .unmitigated: "UNMITIGATED"
            case .deployable: "DEPLOYABLE"
            case .whatIf: "WHAT-IF"
            }
        }
        text += "SIDE BY SIDE\n" + TextTable.indent(TextTable(header: [""] + columns, rows: rows).rendered, by: 2)
        return text
    }
}
