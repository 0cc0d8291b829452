import Hazards
import Mitigations

/// Hazard reports as text: steps, losses, numbers, audit trail, limits; side by side for a
/// comparison. Reports hold no secrets, so neither does this.
enum HazardReportText {
    static func header(_ hazard: Hazard, store: String) -> String {
        "hazard \(hazard.rawValue): \(hazard.summary)\nstore: \(store)\n"
    }

    static func body(_ report: HazardReport) -> String {
        var text = report.mitigated
            ? "MITIGATED (\(report.mitigations.joined(separator: ", ")))\n"
            : "UNMITIGATED (Keychain Services as Apple ships it)\n"
        text += "  group\(report.groups.count == 1 ? "" : "s"): \(report.groups.joined(separator: ", "))\n"
        for (index, step) in report.steps.enumerated() {
            text += "  \(index + 1). \(step)\n"
        }
        if report.losses.isEmpty {
            text += "  lost: nothing\n"
        } else {
            text += "  lost:\n"
            let rows = report.losses.map { [$0.app, "\($0.lost) \($0.lost == 1 && $0.unit.hasSuffix("s") ? String($0.unit.dropLast()) : $0.unit)", $0.causedBy.joined(separator: ", ")] }
            text += indent(Table(header: ["APP", "LOST", "CAUSED BY"], rows: rows).rendered, by: 4)
        }
        if !report.audit.isEmpty {
            text += "  audit journal:\n"
            for entry in report.audit { text += "    \(entry)\n" }
        }
        text += "  result: \(report.verdict)\n"
        if !report.limits.isEmpty {
            text += "  not prevented:\n"
            for limit in report.limits { text += "    - \(limit)\n" }
        }
        return text
    }

    static func comparison(_ comparison: HazardComparison) -> String {
        var text = header(comparison.hazard, store: comparison.unmitigated.store) + "\n"
        text += body(comparison.unmitigated) + "\n" + body(comparison.mitigated) + "\n"
        var names: [String] = []
        for metric in comparison.unmitigated.metrics + comparison.mitigated.metrics where !names.contains(metric.name) {
            names.append(metric.name)
        }
        let rows = names.map { name in
            [name, comparison.unmitigated.metric(name).map(String.init) ?? "-", comparison.mitigated.metric(name).map(String.init) ?? "-"]
        }
        text += "SIDE BY SIDE\n" + indent(Table(header: ["", "UNMITIGATED", "MITIGATED"], rows: rows).rendered, by: 2)
        return text
    }

    private static func indent(_ text: String, by count: Int) -> String {
        let pad = String(repeating: " ", count: count)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : pad + $0 }.joined(separator: "\n")
    }
}
