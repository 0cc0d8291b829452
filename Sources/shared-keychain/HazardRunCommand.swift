import ArgumentParser
import Device
import Hazards
import Mitigations

struct HazardRunCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one hazard: unmitigated and mitigated side by side, or only one of them.",
        discussion: "Exits 0 whatever the hazard did: the report is the result. Names: \(Hazard.allCases.map(\.rawValue).joined(separator: ", "))."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The hazard: \(Hazard.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var hazard: Hazard

    @Flag(help: "Run only the mitigated scenario.")
    var mitigated = false

    @Flag(help: "Run only the unmitigated scenario.")
    var unmitigated = false

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
