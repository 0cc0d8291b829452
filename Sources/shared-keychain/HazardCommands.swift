import ArgumentParser
import Device
import Hazards
import Mitigations

struct HazardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hazard",
        abstract: "Run the built-in hazard scenarios of a shared keychain group, with and without mitigations.",
        discussion: """
            Each hazard runs in this process with simulated apps of a made-up team sharing the
            store --keyring names (the private keyring by default, or memory), once as Keychain
            Services behaves and once with mitigations, and reports what each app lost and who
            caused it. The run's items are deleted afterwards. No token is ever printed.
            """,
        subcommands: [HazardListCommand.self, HazardRunCommand.self]
    )
}

extension Hazard: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

struct HazardListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the built-in hazards and their mitigations."
    )

    private struct Entry: Encodable {
        let name: String
        let summary: String
        let mitigation: String
    }

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let entries = Hazard.allCases.map { Entry(name: $0.rawValue, summary: $0.summary, mitigation: $0.mitigation) }
        if global.json {
            Output.printJSON(entries)
            return
        }
        for entry in entries {
            Output.standardOutput.write("\(entry.name)\n  hazard:     \(entry.summary)\n  mitigation: \(entry.mitigation)\n")
        }
        Output.standardOutput.write("run one with: shared-keychain hazard run NAME [--mitigated | --unmitigated] [--keyring memory]\n")
    }
}

struct HazardRunCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one hazard: unmitigated and mitigated side by side, or only one of them. Exits 0 whatever the hazard did: the report is the result. Names: \(Hazard.allCases.map(\.rawValue).joined(separator: ", "))."
    )

    @Argument(help: ArgumentHelp("The hazard: \(Hazard.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var hazard: Hazard

    @Flag(help: "Run only the mitigated scenario.")
    var mitigated = false

    @Flag(help: "Run only the unmitigated scenario.")
    var unmitigated = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func validate() throws {
        if mitigated, unmitigated { throw ValidationError("give --mitigated or --unmitigated, not both (neither runs both)") }
    }

    func execute() throws {
        let store = try KeychainSession(global).store
        // A hazard that locks the device leaves it as it found it.
        let device = StateDirectoryDevice(global: global)
        let before = try Device(stateDirectory: global.stateDirectoryURL).lockState()
        defer { if hazard.needsDevice { try? device.setLock(before) } }
        if mitigated || unmitigated {
            let report = try hazard.run(mitigated: mitigated, on: store, device: device)
            if global.json {
                Output.printJSON(report)
            } else {
                Output.standardOutput.write(HazardReportText.header(hazard, store: report.store) + "\n" + HazardReportText.body(report))
            }
            return
        }
        let comparison = try hazard.compare(on: store, device: device)
        if global.json {
            Output.printJSON(comparison)
        } else {
            Output.standardOutput.write(HazardReportText.comparison(comparison))
        }
    }
}

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
