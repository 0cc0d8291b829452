import ArgumentParser
import Device
import Hazards
import Mitigations
import SharedKeychain

struct HazardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hazard",
        abstract: "Run the built-in hazard scenarios of a shared keychain group, with and without mitigations.",
        discussion: """
            Each hazard runs in this process with simulated apps of a made-up team sharing the \
            store --keyring names (the private keyring by default, or memory): as Keychain \
            Services and MSAL ship, then with the fix a team can deploy in its own apps ("in \
            your apps, deployable on iOS"), and with --what-if also with keychain features only \
            this emulator has ("emulator only: what if the keychain had it"). Each report says \
            what a device shows (error codes, account lists, items in the group) apart from what \
            only the emulator shows (which app created or deleted what, the audit journal), which \
            a device never records. The run's items are deleted afterwards. No token is ever \
            printed.
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
        abstract: "List the built-in hazards and their mitigations, each labelled with where it lives."
    )

    private struct Entry: Encodable {
        let name: String
        let summary: String
        let mitigations: [HazardMitigation]
    }

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let entries = Hazard.allCases.map { Entry(name: $0.rawValue, summary: $0.summary, mitigations: $0.mitigations) }
        if global.json {
            Output.printJSON(entries)
            return
        }
        for entry in entries {
            Output.standardOutput.write("\(entry.name)\n  hazard:     \(entry.summary)\n")
            for mitigation in entry.mitigations {
                Output.standardOutput.write("  mitigation: \(mitigation.name) [\(mitigation.label)]\n")
            }
        }
        Output.standardOutput.write("run one with: shared-keychain hazard run NAME [--what-if] [--mitigated | --unmitigated] [--keyring memory]\n")
    }
}

struct HazardRunCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one hazard: as iOS ships, then with the fix your apps can deploy; --what-if adds the emulator-only mitigations. Exits 0 whatever the hazard did: the report is the result. Names: \(Hazard.allCases.map(\.rawValue).joined(separator: ", ")).",
        discussion: """
            Every mitigation is printed with where it lives: "in your apps, deployable on iOS", \
            or "emulator only: what if the keychain had it" (guarded delete, the keychain-side \
            audit journal, snapshot and restore, compare-and-swap). Each report has two parts: \
            what a device shows, and what only the emulator shows ("recorded by the emulator; \
            a device keeps none").
            """
    )

    @Argument(help: ArgumentHelp("The hazard: \(Hazard.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var hazard: Hazard

    @Flag(help: "Also run the emulator-only mitigations (guarded delete, audit, snapshot, compare-and-swap): what if the keychain had them.")
    var whatIf = false

    @Flag(help: "Run only the mitigated scenarios (the deployable fix; with --what-if also the emulator-only one).")
    var mitigated = false

    @Flag(help: "Run only the unmitigated scenario.")
    var unmitigated = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func validate() throws {
        if mitigated, unmitigated { throw ValidationError("give --mitigated or --unmitigated, not both (neither runs both)") }
        if unmitigated, whatIf { throw ValidationError("--what-if adds mitigated runs; it cannot go with --unmitigated") }
        if mitigated, hazard.variants(whatIf: whatIf).count < 2 {
            throw ValidationError("\(hazard) has no deployable mitigation; its emulator-only one runs with --what-if")
        }
    }

    func execute() throws {
        let variants = hazard.variants(whatIf: whatIf).filter { variant in
            mitigated ? variant != .unmitigated : !unmitigated || variant == .unmitigated
        }
        let store = try global.openStore()
        // A hazard that locks the device leaves it as it found it.
        let device = StateDirectoryDevice(global: global)
        let before = try global.device.lockState()
        defer { if hazard.needsDevice { try? device.setLock(before) } }
        let comparison = HazardComparison(hazard: hazard, runs: try variants.map { try hazard.run($0, on: store, device: device) })
        if global.json {
            if comparison.runs.count == 1, let report = comparison.runs.first { Output.printJSON(report) } else { Output.printJSON(comparison) }
            return
        }
        var text: String
        if comparison.runs.count == 1, let only = comparison.runs.first {
            text = HazardReportText.header(hazard, store: only.store) + "\n" + HazardReportText.body(only)
        } else {
            text = HazardReportText.comparison(comparison)
        }
        if !whatIf, !unmitigated, !hazard.mitigations(.whatIf).isEmpty {
            text += "\n--what-if adds: \(hazard.mitigations(.whatIf).map(\.name).joined(separator: "; ")) [\(MitigationScope.whatIf.label)]\n"
        }
        Output.standardOutput.write(text)
    }
}

/// Hazard reports as text: what a device shows, then what only the emulator shows (losses by
/// provenance, audit trail), the result and the limits; side by side for several runs. Reports
/// hold no secrets, so neither does this. Their sentences may quote what the group's items say,
/// so each is escaped (``DisplayText``).
enum HazardReportText {
    static func header(_ hazard: Hazard, store: String) -> String {
        "hazard \(hazard.rawValue): \(hazard.summary)\nstore: \(store)\n"
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
            text += indent(Table(header: ["APP", "LOST", "CAUSED BY"], rows: rows).rendered, by: 6)
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
        var text = header(comparison.hazard, store: comparison.runs.first?.store ?? "") + "\n"
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
        text += "SIDE BY SIDE\n" + indent(Table(header: [""] + columns, rows: rows).rendered, by: 2)
        return text
    }

    private static func indent(_ text: String, by count: Int) -> String {
        let pad = String(repeating: " ", count: count)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : pad + $0 }.joined(separator: "\n")
    }
}
