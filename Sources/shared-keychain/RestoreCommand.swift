import ArgumentParser
import Foundation
import Hazards
import Mitigations
import SharedKeychain

struct RestoreCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back the items of a snapshot that are missing from its group.",
        discussion: "Items present under the same primary key (account, service, group) are newer than the snapshot and are left as they are. Run it as an app (--app, only its own groups) or as the device owner (--admin): the restored items' creator is whoever restores them, never what the file says, and the group's audit journal records the restore."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The snapshot file written by `snapshot`.", valueName: "file"))
    var input: String

    func execute() throws {
        let snapshot = try GroupSnapshot.read(from: URL(fileURLWithPath: input))
        try actor.checkReach(snapshot.group, global)
        let store = try KeychainSession(global).store
        let result = try snapshot.restore(into: store, creator: actor.name)
        try AuditJournal(store: store).append(AuditEntry(
            time: Date(), app: actor.name, operation: "restore", group: snapshot.group, query: "snapshot \(input)",
            itemCount: result.restored, creators: result.creators, outcome: .restored, adHoc: actor.isAdHoc(global)))
        if global.json {
            Output.printJSON(result)
        } else {
            Output.standardOutput.write("\(result)\n")
        }
    }
}
