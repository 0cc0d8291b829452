import ArgumentParser
import Foundation
import Hazards
import Mitigations
import SharedKeychain

struct SnapshotCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Save every item of a group, data included, to a JSON file (mode 0600), to restore after a wipe.",
        discussion: "The file holds the secrets; nothing of them is printed. Bring it back with `restore --input FILE`. Run it as an app (--app, only its own groups) or as the device owner (--admin); the group's audit journal records who took it."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The full access group, e.g. ABCDE12345.com.microsoft.adalcache.", valueName: "group"))
    var group: String

    @Option(help: ArgumentHelp("The snapshot file to write (replaced if it exists).", valueName: "file"))
    var output: String

    func checkInputs() throws {
        _ = try AccessGroup(group)
    }

    func execute() throws {
        try actor.checkReach(group, global)
        let store = try KeychainSession(global).store
        let snapshot = try GroupSnapshot.take(of: group, from: store)
        try snapshot.write(to: URL(fileURLWithPath: output))
        try AuditJournal(store: store).append(AuditEntry(
            time: Date(), app: actor.name, operation: "snapshot", group: group, query: "everything in group \(group)",
            itemCount: snapshot.items.count, creators: MitigatedStore.count(snapshot.items), outcome: .taken, adHoc: actor.isAdHoc(global)))
        if global.json {
            Output.printJSON(SnapshotSummary(group: group, items: snapshot.items.count, file: output))
        } else {
            Output.standardOutput.write("wrote \(snapshot.items.count) item\(snapshot.items.count == 1 ? "" : "s") of group \(group) to \(output) (mode 0600)\n")
        }
    }
}

/// What `snapshot --json` prints: counts, never data.
struct SnapshotSummary: Encodable {
    let group: String
    let items: Int
    let file: String
}
