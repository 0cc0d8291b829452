import ArgumentParser
import Foundation
import Hazards

struct RestoreCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back the items of a snapshot that are missing from its group.",
        discussion: "Items present under the same primary key (account, service, group) are newer than the snapshot and are left as they are. When the group is audited, the restore is journaled."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var policy: AuditPolicyOptions

    @Option(help: ArgumentHelp("The snapshot file written by `snapshot`.", valueName: "file"))
    var input: String

    func execute() throws {
        let snapshot = try GroupSnapshot.read(from: URL(fileURLWithPath: input))
        let store = try KeychainSession(global).store
        let result = try snapshot.restore(into: store)
        if try policy.load(global).policy(for: snapshot.group)?.enables(.audit) == true {
            try AuditJournal(store: store).append(AuditEntry(
                time: Date(), app: "restore", operation: "restore", group: snapshot.group, query: "snapshot \(input)",
                itemCount: result.restored, creators: result.creators, outcome: .restored))
        }
        if global.json {
            Output.printJSON(result)
        } else {
            Output.standardOutput.write("\(result)\n")
        }
    }
}
