import ArgumentParser
import Hazards

struct AuditCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit journal of a group: every delete (refused ones too) and restore, with app, query, item count and time.",
        discussion: "Groups opt into the journal with the audit mitigation of a policy (--policy, or policy.json in the state directory). Never shows item data."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The full access group, e.g. ABCDE12345.com.microsoft.adalcache.", valueName: "group"))
    var group: String

    func execute() throws {
        let entries = try AuditJournal(store: KeychainSession(global).store).entries(group: group)
        if global.json {
            Output.printJSON(entries)
            return
        }
        let rows = entries.map { entry in
            [entry.time.formatted(.iso8601), entry.app, entry.operation, entry.outcome.rawValue, String(entry.itemCount),
             entry.creators.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","), entry.query]
        }
        Output.standardOutput.write(Table(header: ["TIME", "APP", "OPERATION", "OUTCOME", "ITEMS", "CREATORS", "QUERY"], rows: rows).rendered)
        Output.standardOutput.write("\(entries.count) entr\(entries.count == 1 ? "y" : "ies")\n")
    }
}
