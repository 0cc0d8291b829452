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
        let device = global.deviceControl
        let before = try global.device.lockState()
        defer { if hazard.needsDevice { try? device.setLock(before) } }
        let comparison = HazardComparison(hazard: hazard, runs: try variants.map { try hazard.run($0, on: store, device: device) })
        if comparison.runs.count == 1, let only = comparison.runs.first {
            Output.print(only, json: global.json)
        } else {
            Output.print(comparison, json: global.json)
        }
        if !global.json, !whatIf, !unmitigated, !hazard.mitigations(.whatIf).isEmpty {
            Output.standardOutput.write(
                "\n--what-if adds: \(hazard.mitigations(.whatIf).map(\.name).joined(separator: "; ")) [\(MitigationScope.whatIf.label)]\n")
        }
    }
}
