import ArgumentParser
import Foundation
import Hazards
import Mitigations
import SharedKeychain

struct AuditCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit journal of a group: every delete (refused ones too) and restore, with app, query, item count and time.",
        discussion: "Groups opt into delete journaling with the audit mitigation of a policy (--policy, or policy.json in the state directory); snapshots, restores and audit reads are journaled always. Run it as an app (--app, only its own groups) or as the device owner (--admin). Never shows item data."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The full access group, e.g. ABCDE12345.com.microsoft.adalcache.", valueName: "group"))
    var group: String

    @Flag(name: .customLong("acknowledge-interrupted"), help: "Forget the interrupted deletes reported so far (they stay in no other place).")
    var acknowledgeInterrupted = false

    func checkInputs() throws {
        _ = try AccessGroup(group)
    }

    func execute() throws {
        try actor.checkReach(group, global)
        let store = try KeychainSession(global).store
        let journal = AuditJournal(store: store)
        let entries = try journal.entries(group: group)
        // Reading the journal is journaled too, after the read: who looked, and when.
        try journal.append(AuditEntry(
            time: Date(), app: actor.name, operation: "audit", group: group, query: "the journal of \(group)",
            itemCount: entries.count, creators: [:], outcome: .viewed, adHoc: actor.isAdHoc(global)))
        let intents = IntentJournal(store: store)
        let interrupted = try intents.interrupted(group: group)
        if acknowledgeInterrupted { try intents.acknowledge(group: group) }
        if global.json {
            Output.printJSON(AuditJSON(entries: entries, interrupted: interrupted))
            return
        }
        for deletion in interrupted {
            Output.standardOutput.write("\(deletion)\n")
        }
        if acknowledgeInterrupted, !interrupted.isEmpty {
            Output.standardOutput.write("acknowledged \(interrupted.count) interrupted delete\(interrupted.count == 1 ? "" : "s")\n")
        }
        let rows = entries.map { entry in
            [entry.time.formatted(.iso8601), entry.app + (entry.adHoc == true ? " (ad-hoc)" : ""), entry.operation, entry.outcome.rawValue, String(entry.itemCount),
             entry.creators.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","), entry.query]
        }
        Output.standardOutput.write(Table(header: ["TIME", "APP", "OPERATION", "OUTCOME", "ITEMS", "CREATORS", "QUERY"], rows: rows).rendered)
        Output.standardOutput.write("\(entries.count) entr\(entries.count == 1 ? "y" : "ies")\n")
    }
}

/// `audit --json`: the journal's entries, and the deletes that never finished.
private struct AuditJSON: Encodable {
    let entries: [AuditEntry]
    let interrupted: [IntentJournal.Interrupted]
}
