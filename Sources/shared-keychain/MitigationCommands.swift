import ArgumentParser
import Foundation
import Mitigations
import SharedKeychain

struct SnapshotCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Save every item of a group, data included, to a JSON file (mode 0600), to restore after a wipe. Emulator only: what if the keychain had it.",
        discussion: "The file holds the secrets; nothing of them is printed. Bring it back with `restore --input FILE`. Run it as an app (--app, only its own groups) or as the device owner (--admin); the group's audit journal records who took it. A snapshot of thousands of items still reading after 2 s shows its progress on standard error."
    )

    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The full access group, e.g. ABCDE12345.com.microsoft.adalcache.", valueName: "group"))
    var group: String

    @Option(help: ArgumentHelp("The snapshot file to write (replaced if it exists).", valueName: "file"))
    var output: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        _ = try AccessGroup(group)
        try Output.checkOutputPath(output, option: "--output")
    }

    func execute() throws {
        let adHoc = try actor.checkReach(group, global)
        let store = try global.openStore()
        let snapshot = try ProgressLine.whileReading("snapshot") { try GroupSnapshot.take(of: group, from: store) }
        try snapshot.write(to: URL(fileURLWithPath: output))
        try AuditJournal(store: store).append(AuditEntry(
            time: Date(), app: actor.name, operation: "snapshot", group: group, query: "everything in group \(group)",
            itemCount: snapshot.items.count, addedBy: MitigatedStore.count(snapshot.items), outcome: .taken, adHoc: adHoc))
        if global.json {
            Output.printJSON(SnapshotSummary(group: group, items: snapshot.items.count, file: output))
        } else {
            Output.standardOutput.write("wrote \(snapshot.items.count.counted("item")) of group \(group) to \(output) (mode 0600)\n")
        }
    }
}

/// What `snapshot --json` prints: counts, never data.
struct SnapshotSummary: Encodable {
    let group: String
    let items: Int
    let file: String
}

struct RestoreCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back the items of a snapshot that are missing from its group. Emulator only: what if the keychain had it.",
        discussion: "Items present under the same primary key (account, service, group) are newer than the snapshot and are left as they are. Run it as an app (--app, only its own groups) or as the device owner (--admin): the restored items are recorded (in the emulator's provenance) as added by whoever restores them, never by what the file says, and the group's audit journal records the restore. A restore still running after 2 s (thousands of items) shows its progress on standard error."
    )

    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The snapshot file written by `snapshot`.", valueName: "file"))
    var input: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let snapshot = try GroupSnapshot.read(from: URL(fileURLWithPath: input))
        let adHoc = try actor.checkReach(snapshot.group, global)
        let store = try global.openStore()
        // Past 2 s (a group of thousands), a progress line on standard error.
        let progress = ProgressLine.counting("restore", of: snapshot.items.count, unit: "items")
        let result = try snapshot.restore(into: store, restoredBy: actor.name) { done, _ in progress.update(done) }
        progress.finish()
        try AuditJournal(store: store).append(AuditEntry(
            time: Date(), app: actor.name, operation: "restore", group: snapshot.group, query: "snapshot \(input)",
            itemCount: result.restored, addedBy: result.addedBy, outcome: .restored, adHoc: adHoc))
        if global.json {
            Output.printJSON(result)
        } else {
            Output.standardOutput.write("\(result)\n")
        }
    }
}

struct AuditCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit journal of a group: every delete (refused ones too) and restore, with app, query, item count and time. Emulator only: what if the keychain had it.",
        discussion: "Groups opt into delete journaling with the audit mitigation of a policy (--policy, or policy.json in the state directory); snapshots, restores and audit reads are journaled always. Run it as an app (--app, only its own groups) or as the device owner (--admin). Never shows item data."
    )

    @OptionGroup var actor: ActorOptions

    @Option(help: ArgumentHelp("The full access group, e.g. ABCDE12345.com.microsoft.adalcache.", valueName: "group"))
    var group: String

    @Flag(name: .customLong("acknowledge-interrupted"), help: "Forget the interrupted deletes reported so far (they stay in no other place).")
    var acknowledgeInterrupted = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        _ = try AccessGroup(group)
    }

    func execute() throws {
        let adHoc = try actor.checkReach(group, global)
        let store = try global.openStore()
        let journal = AuditJournal(store: store)
        let entries = try journal.entries(group: group)
        // Reading the journal is journaled too, after the read: who looked, and when.
        try journal.append(AuditEntry(
            time: Date(), app: actor.name, operation: "audit", group: group, query: "the journal of \(group)",
            itemCount: entries.count, addedBy: [:], outcome: .viewed, adHoc: adHoc))
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
            Output.standardOutput.write("acknowledged \(interrupted.count.counted("interrupted delete"))\n")
        }
        let rows = entries.map { entry in
            [entry.time.formatted(.iso8601), entry.app + (entry.adHoc == true ? " (ad-hoc)" : ""), entry.operation, entry.outcome.rawValue, String(entry.itemCount),
             entry.addedBy.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","), entry.query]
        }
        Output.standardOutput.write(TextTable(header: ["TIME", "APP", "OPERATION", "OUTCOME", "ITEMS", ItemJSON.addedByHeader, "QUERY"], rows: rows).rendered)
        if !entries.isEmpty { Output.standardOutput.write("\(ItemJSON.addedByHeader): \(Provenance.note)\n") }
        Output.standardOutput.write("\(entries.count) entr\(entries.count == 1 ? "y" : "ies")\n")
    }
}

/// `audit --json`: the journal's entries, and the deletes that never finished.
private struct AuditJSON: Encodable {
    let entries: [AuditEntry]
    let interrupted: [IntentJournal.Interrupted]
    /// Whose record each entry's `addedBy` is (``Provenance/note``).
    let addedByNote = "addedBy: \(Provenance.note)"
}

/// Where the mitigation policy comes from: `--policy FILE`, else `policy.json` in the state
/// directory when it exists, else none (Apple's behaviour).
struct AuditPolicyOptions: ParsableArguments {
    @Option(name: .customLong("policy"), help: ArgumentHelp(
        #"A mitigation policy (JSON): per access group, the mitigations on and the privileged bundle IDs. Default: policy.json in the state directory, if any. Format: {"groups": {"<team>.<group>": {"mitigations": ["audit", "guarded-delete"], "privileged": ["com.microsoft.azureauthenticator"]}}}"#,
        valueName: "file"))
    var policy: String?

    /// The file `--policy` names, if any.
    var file: URL? { policy.map { URL(fileURLWithPath: $0) } }
}
