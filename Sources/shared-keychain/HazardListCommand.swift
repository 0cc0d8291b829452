import ArgumentParser
import Hazards
import Mitigations

struct HazardListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the built-in hazards and their mitigations."
    )

    @OptionGroup var global: GlobalOptions

    private struct Entry: Encodable {
        let name: String
        let summary: String
        let mitigation: String
    }

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
