import ArgumentParser
import Foundation
import KeychainStorage
import SharedKeychain

struct ItemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "Add, read, update, delete and list generic-password items as one app.",
        discussion: """
            Without --group, add uses the app's first access group, and get, update, delete and
            list act on every group the app is entitled to, as Keychain Services does: an
            ungrouped delete removes matches in all of them.
            """,
        subcommands: [ItemAddCommand.self, ItemGetCommand.self, ItemUpdateCommand.self, ItemDeleteCommand.self, ItemListCommand.self]
    )
}

struct ItemAddCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item (SecItemAdd). Fails with errSecDuplicateItem if account + service + group exists."
    )

    @OptionGroup(title: "The app") var app: AppOptions

    @Option(help: "The account (kSecAttrAccount).")
    var account: String

    @Option(help: "The service (kSecAttrService).")
    var service: String

    @Option(help: ArgumentHelp("The access group. Default: the app's first group.", valueName: "group"))
    var group: String?

    @Option(help: "The generic attribute (kSecAttrGeneric), as text.")
    var generic: String?

    @Option(help: "The type attribute (kSecAttrType), an integer.")
    var type: Int?

    @Option(help: "A label (kSecAttrLabel).")
    var label: String?

    @Option(help: "A comment (kSecAttrComment).")
    var comment: String?

    @Option(help: "A description (kSecAttrDescription), a user-visible kind of item.")
    var description: String?

    @Flag(help: "Mark the item synchronizable (kSecAttrSynchronizable). Nothing syncs on Linux; the flag is kept and matched.")
    var synchronizable = false

    @Option(help: ArgumentHelp(
        "When the item can be used (kSecAttrAccessible): whenUnlocked (default), afterFirstUnlock, always, whenPasscodeSetThisDeviceOnly, whenUnlockedThisDeviceOnly, afterFirstUnlockThisDeviceOnly or alwaysThisDeviceOnly. While the device is locked (`device lock`), whenUnlocked* and whenPasscodeSet* items fail with errSecInteractionNotAllowed (-25308); afterFirstUnlock* items work once the device was unlocked after its last reboot.",
        valueName: "class"))
    var accessible: Accessibility = .whenUnlocked

    @OptionGroup var input: DataOptions

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        if let type { try InputValidation.check(type, "--type", in: 0...Int(UInt32.max)) }
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let item = try keychain.add(NewItem(
            account: account, service: service, group: group, generic: generic.map { Data($0.utf8) },
            type: type, label: label, comment: comment, itemDescription: description, data: input.required(),
            accessibility: accessible, synchronizable: synchronizable))
        if global.json {
            Output.printJSON(ItemJSON(item, includeData: false))
        } else {
            Output.standardOutput.write("added account '\(item.account)', service '\(item.service)' to group \(item.group)\n")
        }
    }
}

extension Accessibility: ExpressibleByArgument {}

struct ItemGetCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the data of the first matching item, or of all with --all (SecItemCopyMatching).",
        discussion: "Text output is the raw data (binary safe). With --json: an object, or an array with --all, holding the attributes and the data."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions

    @Flag(help: "Return every match (kSecMatchLimitAll) instead of the first.")
    var all = false

    @Option(help: ArgumentHelp("Return at most this many matches (a number as kSecMatchLimit), oldest first.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Print every attribute as JSON, without the data (kSecReturnAttributes alone).")
    var attributes = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func validate() throws {
        if all, limit != nil { throw ValidationError("give --all or --limit, not both") }
    }

    func checkInputs() throws {
        try selection.checkInputs()
        if let limit { try InputValidation.check(limit, "--limit", in: 1...1_000_000) }
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let matchLimit: MatchLimit = all ? .all : limit.map { .count($0) } ?? .one
        let items = try keychain.copyMatching(selection.query, limit: matchLimit)
        // One object for the first match; an array when more may come back.
        let many = matchLimit != .one
        if global.json || attributes {
            let views = items.map { ItemJSON($0, includeData: !attributes) }
            if many { Output.printJSON(views) } else { Output.printJSON(views[0]) }
            return
        }
        for item in items {
            Output.standardOutput.write(item.data)
            if many || Output.standardOutputIsTerminal { Output.standardOutput.write("\n") }
        }
    }
}

struct ItemUpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change every matching item (SecItemUpdate): its data, any attribute, or both; prints how many changed.",
        discussion: """
            --account, --service, --label and the other plain names select the items; --new-label,
            --new-comment and the other --new-* options set attributes, and --data, --data-file
            or --stdin the data. With nothing to set nothing is changed (errSecParam). --if-version
            V makes the update a compare-and-swap: it applies only if every matching item is still
            at version V (see `item get --json`), else it fails with errSKVersionConflict (-99001,
            exit 18) and changes nothing.
            """
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var changes: ItemChangeOptions
    @OptionGroup var input: DataOptions

    @Option(name: .customLong("if-version"), help: ArgumentHelp(
        "Update only if the item is still at this version (compare-and-swap).", valueName: "version"))
    var ifVersion: UInt64?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        try selection.checkInputs()
        try changes.checkInputs()
    }

    func execute() throws {
        let change = changes.change(data: try input.read(), ifVersion: ifVersion)
        guard !change.isEmpty else {
            throw UsageFailure(message: "nothing to update: give new data (--data TEXT, --data-file FILE or --stdin) or an attribute to set (--new-label, --new-comment, ...)")
        }
        if let ifVersion { try InputValidation.check(ifVersion, "--if-version", in: 1...UInt64.max) }
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let count = try keychain.update(selection.query, with: change)
        if global.json {
            Output.printJSON(["updated": count])
        } else {
            Output.standardOutput.write("updated \(count.counted("item"))\n")
        }
    }
}

struct ItemDeleteCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every matching item (SecItemDelete); prints how many were deleted.",
        discussion: "Keychain Services deletes every item of every group the app may use when the query names nothing; here that needs --all (with or without --group), and --dry-run shows what would go."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var policy: AuditPolicyOptions
    @OptionGroup var dryRun: DryRunOptions

    @Flag(help: "Delete every item of the group (--group) or of every group the app may use: a query that names no attribute.")
    var all = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        try selection.checkInputs()
    }

    func execute() throws {
        let identity = try app.identity(global)
        let query = selection.query
        if !all, query == KeychainQuery(group: query.group) {
            let scope = query.group.map { "every item of \($0)" } ?? "every item of every group \(identity.bundleID) may use (\(identity.accessGroupNames.joined(separator: ", ")))"
            throw UsageFailure(message: "no attribute selects the items, so this would delete \(scope): pass --all to do that, or --dry-run to see them first")
        }
        let keychain = try KeychainSession(global).keychain(for: identity, policy: policy.load(global), adHoc: app.isAdHoc(global))
        if dryRun.dryRun {
            dryRun.show(try keychain.copyAll(query), json: global.json)
            return
        }
        let count = try keychain.delete(query)
        if global.json {
            Output.printJSON(["deleted": count])
        } else {
            Output.standardOutput.write("deleted \(count.counted("item"))\n")
        }
    }
}

struct ItemListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the attributes of the items the app can see, or of those matching the attributes given; never their data."
    )

    @OptionGroup(title: "The app") var app: AppOptions

    @OptionGroup var selection: ItemSelectionOptions

    @Option(help: ArgumentHelp("List at most this many, oldest first (a number as kSecMatchLimit).", valueName: "n"))
    var limit: Int?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        try selection.checkInputs()
        if let limit { try InputValidation.check(limit, "--limit", in: 1...1_000_000) }
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let items = try keychain.copyAll(selection.query, limit: limit.map { .count($0) } ?? .all)
        if global.json {
            Output.printJSON(items.map { ItemJSON($0, includeData: false) })
            return
        }
        Output.standardOutput.write(ItemJSON.table(items))
        Output.standardOutput.write("\(items.count.counted("item"))\n")
    }
}

/// How an item appears in `--json` output. `data` is present only when asked for: listings
/// never carry secrets.
struct ItemJSON: Encodable {
    let group: String
    let account: String
    let service: String
    /// The generic attribute as text when it is UTF-8; `genericBase64` always.
    let generic: String?
    let genericBase64: String?
    let type: Int?
    let label: String?
    let comment: String?
    let description: String?
    let creator: String?
    /// `kSecAttrSynchronizable`.
    let synchronizable: Bool
    let created: Date
    let modified: Date
    /// The item's write count, for `item update --if-version`.
    let version: UInt64
    /// `kSecAttrAccessible` by Apple's name (`whenUnlocked`, `afterFirstUnlock`, ...).
    let accessible: String
    /// The data as text when it is UTF-8; `dataBase64` always (when data is included).
    let data: String?
    let dataBase64: String?

    init(_ item: KeychainItem, includeData: Bool) {
        group = item.group
        account = item.account
        service = item.service
        generic = item.generic.flatMap { String(data: $0, encoding: .utf8) }
        genericBase64 = item.generic?.base64EncodedString()
        type = item.type
        label = item.label
        comment = item.comment
        description = item.itemDescription
        creator = item.creator
        synchronizable = item.synchronizable
        created = item.creationDate
        modified = item.modificationDate
        version = item.version
        accessible = item.accessibility.rawValue
        data = includeData ? String(data: item.data, encoding: .utf8) : nil
        dataBase64 = includeData ? item.data.base64EncodedString() : nil
    }
}

extension ItemJSON {
    /// Items as `item list` prints them: attributes only.
    static func table(_ items: [KeychainItem]) -> String {
        let rows = items.map { item in
            [item.group, item.account, item.service, item.type.map(String.init) ?? "-", item.accessibility.rawValue,
             item.creator ?? "-", item.modificationDate.formatted(.iso8601)]
        }
        return Table(header: ["GROUP", "ACCOUNT", "SERVICE", "TYPE", "ACCESSIBLE", "CREATOR", "MODIFIED"], rows: rows).rendered
    }
}
