import ArgumentParser
import Foundation
import KeychainStorage
import SharedKeychain

struct ItemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "Add, read, update, delete and list keychain items (generic and internet passwords, keys) as one app.",
        discussion: """
            Without --group, add uses the app's first access group, and get, update, delete and \
            list act on every group the app is entitled to, as Keychain Services does: an \
            ungrouped delete removes matches in all of them. Accounts and services given as bytes \
            (Data in Apple's API) take --account-hex and --service-hex; internet passwords take \
            --class internet with --server, --protocol, --port, --path, --security-domain and \
            --authentication-type; keys (kSecClassKey: the bytes of a key, as MSAL keeps its broker \
            key) take --class key with --tag, --key-class, --key-type, --key-size, \
            --effective-key-size and --application-label-hex, which with the group are a key's \
            primary key. A key's data is never printed but by item get.
            """,
        subcommands: [ItemAddCommand.self, ItemGetCommand.self, ItemUpdateCommand.self, ItemDeleteCommand.self, ItemListCommand.self]
    )
}

struct ItemAddCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item (SecItemAdd). Fails with errSecDuplicateItem if its primary key exists: account + service (or the internet attributes, or a key's attributes) + group + synchronizable."
    )

    @OptionGroup(title: "The app") var app: AppOptions

    @Option(name: .customLong("class"), help: ArgumentHelp("generic (default), internet (kSecClassInternetPassword) or key (kSecClassKey).", valueName: "class"))
    var itemClass: ItemClass = .genericPassword

    @Option(help: "The account (kSecAttrAccount).")
    var account: String?

    @Option(name: .customLong("account-hex"), help: ArgumentHelp("The account as bytes (Data), in hex: DEADBEEF. Returned as Data.", valueName: "hex"))
    var accountHex: String?

    @Option(help: "The service (kSecAttrService) of a generic password.")
    var service: String?

    @Option(name: .customLong("service-hex"), help: ArgumentHelp("The service as bytes (Data), in hex.", valueName: "hex"))
    var serviceHex: String?

    @OptionGroup(title: "Internet passwords") var internet: InternetOptions

    @OptionGroup(title: "Keys") var key: KeyOptions

    @Option(name: .customLong("access-control"), help: ArgumentHelp(
        "An access control (kSecAttrAccessControl) with these flags, comma-separated: userPresence, biometryAny, biometryCurrentSet, devicePasscode, watch, or, and. Using the item's data then asks the device (`device authentication`).",
        valueName: "flags"))
    var accessControl: AccessControlArgument?

    @Option(help: ArgumentHelp("The access group. Default: the app's first group.", valueName: "group"))
    var group: String?

    @Option(help: "The generic attribute (kSecAttrGeneric), as text.")
    var generic: String?

    @Option(help: "The type attribute (kSecAttrType), an integer from 0 to 4294967295; none unless given.")
    var type: Int?

    @Option(help: ArgumentHelp(
        "The creator attribute (kSecAttrCreator), an integer from 0 to 4294967295 (a FourCharCode); none unless given, as on a device. Which app added the item is recorded apart, as the emulator's provenance.",
        valueName: "creator"))
    var creator: Int?

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
        if let creator { try InputValidation.check(creator, "--creator", in: 0...Int(UInt32.max)) }
        try internet.checkInputs()
        try key.checkInputs()
        let account = try AttributeArgument(name: "account", text: account, hex: accountHex).value()
        let service = try AttributeArgument(name: "service", text: service, hex: serviceHex).value()
        if itemClass == .key {
            guard account == nil, service == nil, internet.fields.isEmpty, generic == nil, type == nil, comment == nil, description == nil else {
                throw UsageFailure(message: "a key (--class key) has no account, service, internet attributes, generic, type, comment or description: name it with --tag and the other key options")
            }
            return
        }
        guard key.fields.isEmpty else {
            throw UsageFailure(message: "--tag, --tag-hex, --application-label-hex, --key-class, --key-type, --key-size and --effective-key-size are for --class key")
        }
        guard account != nil else {
            throw UsageFailure(message: "give the account: --account TEXT or --account-hex HEX")
        }
        switch itemClass {
        case .genericPassword:
            guard service != nil else { throw UsageFailure(message: "give the service: --service TEXT or --service-hex HEX") }
            guard internet.fields.isEmpty else {
                throw UsageFailure(message: "--server, --protocol, --port, --path, --security-domain and --authentication-type are for --class internet")
            }
        case .internetPassword:
            guard service == nil else { throw UsageFailure(message: "internet passwords have no service: give --server and the other internet attributes") }
        case .key:
            return
        }
    }

    func execute() throws {
        let keychain = try app.keychain(global)
        let accountValue = try AttributeArgument(name: "account", text: account, hex: accountHex).value() ?? .string("")
        let serviceValue = try AttributeArgument(name: "service", text: service, hex: serviceHex).value() ?? .string("")
        var new = NewItem(
            account: accountValue.key, service: serviceValue.key, group: group, generic: generic.map { Data($0.utf8) },
            type: type.flatMap(UInt32.init(exactly:)), label: label, comment: comment, itemDescription: description,
            creator: creator.flatMap(UInt32.init(exactly:)), data: try input.required(),
            accessibility: accessible, synchronizable: synchronizable)
        new.accountIsData = accountValue.isData
        new.serviceIsData = serviceValue.isData
        if itemClass == .internetPassword { new.internet = internet.fields.attributes }
        if itemClass == .key { new.key = key.fields.attributes }
        new.accessControl = accessControl?.flags
        let item = try keychain.add(new)
        if global.json {
            Output.printJSON(ItemJSON(item, includeData: false))
        } else {
            Output.standardOutput.write("added \(ItemJSON.name(of: item)) to group \(DisplayText(item.group))\n")
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

    @Option(name: .customLong("authentication-ui"), help: ArgumentHelp(
        "For items whose access control asks the user (kSecUseAuthenticationUI): allow (default: the device's answer decides), fail (errSecInteractionNotAllowed instead of asking) or skip (leave them out).",
        valueName: "mode"))
    var authenticationUI: AuthenticationUI = .allow

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func validate() throws {
        if all, limit != nil { throw ValidationError("give --all or --limit, not both") }
    }

    func checkInputs() throws {
        try selection.checkInputs()
        if let limit { try InputValidation.check(limit, "--limit", in: 1...1_000_000) }
    }

    func execute() throws {
        let keychain = try app.keychain(global)
        let matchLimit: MatchLimit = all ? .all : limit.map { .count($0) } ?? .one
        let items = try keychain.copyMatching(selection.query, limit: matchLimit, returningData: !attributes, authenticationUI: authenticationUI)
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
            --account, --service, --label and the other plain names select the items; --new-label, \
            --new-comment and the other --new-* options set attributes, and --data, --data-file \
            or --stdin the data. With nothing to set nothing is changed (errSecParam). --if-version \
            V makes the update a compare-and-swap: it applies only if every matching item is still \
            at version V (see `item get --json`), else it fails with errSKVersionConflict (-99001, \
            exit 18) and changes nothing. --to-group G moves the items to group G (kSecAttrAccessGroup \
            in SecItemUpdate's attributes), which the app must be entitled to (errSecMissingEntitlement, \
            exit 13, and nothing moves); an item of G with the same primary key is errSecDuplicateItem \
            (exit 12), and nothing changes.
            """
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var changes: ItemChangeOptions
    @OptionGroup var input: DataOptions

    @Option(name: .customLong("to-group"), help: ArgumentHelp(
        "Move the matching items to this access group (the app must be entitled to it and to theirs).", valueName: "group"))
    var toGroup: String?

    @Option(name: .customLong("if-version"), help: ArgumentHelp(
        "Update only if the item is still at this version (compare-and-swap).", valueName: "version"))
    var ifVersion: UInt64?

    @Option(name: .customLong("authentication-ui"), help: ArgumentHelp(
        "For items whose access control asks the user: allow (default), fail or skip, as for item get.", valueName: "mode"))
    var authenticationUI: AuthenticationUI = .allow

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        try selection.checkInputs()
        try changes.checkInputs()
    }

    func execute() throws {
        let change = try changes.change(data: try input.read(), ifVersion: ifVersion)
        guard !change.isEmpty || toGroup != nil else {
            throw UsageFailure(message: "nothing to update: give new data (--data TEXT, --data-file FILE or --stdin), an attribute to set (--new-label, --new-comment, ...) or --to-group")
        }
        if toGroup != nil && ifVersion != nil {
            throw UsageFailure(message: "--if-version cannot be combined with --to-group: a move is not a compare-and-swap")
        }
        if let ifVersion { try InputValidation.check(ifVersion, "--if-version", in: 1...UInt64.max) }
        let keychain = try app.keychain(global)
        let count = if let toGroup {
            try keychain.move(selection.query, toGroup: toGroup, with: change, authenticationUI: authenticationUI)
        } else {
            try keychain.update(selection.query, with: change, authenticationUI: authenticationUI)
        }
        if global.json {
            Output.printJSON(UpdatedJSON(updated: count, movedTo: toGroup))
        } else if let toGroup {
            Output.standardOutput.write("moved \(count.counted("item")) to \(toGroup)\n")
        } else {
            Output.standardOutput.write("updated \(count.counted("item"))\n")
        }
    }
}

/// `item update --json`: how many items changed, and the group they moved to with `--to-group`
/// (absent otherwise).
private struct UpdatedJSON: Encodable {
    let updated: Int
    let movedTo: String?
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
        let resolved = try app.resolve(global)
        let identity = resolved.identity
        let query = selection.query
        if !all, query == KeychainQuery(group: query.group) {
            let scope = query.group.map { "every item of \($0)" } ?? "every item of every group \(identity.bundleID) may use (\(identity.accessGroupNames.joined(separator: ", ")))"
            throw UsageFailure(message: "no attribute selects the items, so this would delete \(scope): pass --all to do that, or --dry-run to see them first")
        }
        let keychain = try global.session(policy: policy).keychain(for: resolved)
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
        let keychain = try app.keychain(global)
        let items = try ProgressLine.whileReading("item list") { try keychain.copyAll(selection.query, limit: limit.map { .count($0) } ?? .all) }
        if global.json {
            Output.printJSONArray(items.lazy.map { ItemJSON($0, includeData: false) })
            return
        }
        Output.standardOutput.write(ItemJSON.table(items))
        Output.standardOutput.write("\(items.count.counted("item"))\n")
    }
}
