import ArgumentParser
import Foundation
import SharedKeychain

/// The attributes that select items: every attribute an item has. Each given one must match.
struct ItemSelectionOptions: ParsableArguments {
    @Option(help: "Match this account (kSecAttrAccount).")
    var account: String?

    @Option(name: .customLong("account-hex"), help: ArgumentHelp("Match this account given as bytes (Data), in hex: DEADBEEF.", valueName: "hex"))
    var accountHex: String?

    @Option(help: "Match this service (kSecAttrService).")
    var service: String?

    @Option(name: .customLong("service-hex"), help: ArgumentHelp("Match this service given as bytes (Data), in hex.", valueName: "hex"))
    var serviceHex: String?

    @Option(name: .customLong("class"), help: ArgumentHelp("Only generic passwords (generic), internet passwords (internet) or keys (key). Default: all.", valueName: "class"))
    var itemClass: ItemClass?

    @OptionGroup(title: "Internet passwords") var internet: InternetOptions

    @OptionGroup(title: "Keys") var key: KeyOptions

    @Option(help: ArgumentHelp("Only this access group, in full (TEAMID.com.x) or as $(AppIdentifierPrefix)com.x. Default: all the app's groups.", valueName: "group"))
    var group: String?

    @Option(help: "Match this generic attribute (kSecAttrGeneric), as text.")
    var generic: String?

    @Option(help: ArgumentHelp("Match this type attribute (kSecAttrType), an integer from 0 to 4294967295.", valueName: "type"))
    var type: Int?

    @Option(help: "Match this label (kSecAttrLabel).")
    var label: String?

    @Option(help: "Match this comment (kSecAttrComment).")
    var comment: String?

    @Option(help: "Match this description (kSecAttrDescription).")
    var description: String?

    @Option(help: ArgumentHelp("Match this creator (kSecAttrCreator), an integer from 0 to 4294967295: only items a caller gave one.", valueName: "creator"))
    var creator: Int?

    @Option(name: .customLong("added-by"), help: ArgumentHelp(
        "Match items this app added, by its bundle ID, or `external` for items another Secret Service client wrote: the emulator's own record (a device keeps none).",
        valueName: "bundle-id"))
    var addedBy: String?

    @Option(help: ArgumentHelp("Match this class (kSecAttrAccessible): whenUnlocked, afterFirstUnlock, always, or a ThisDeviceOnly variant.", valueName: "class"))
    var accessible: Accessibility?

    @Option(help: ArgumentHelp("Match synchronizable items (true) or local ones (false). Default: both.", valueName: "bool"))
    var synchronizable: Bool?

    /// Range checks, reported with their status by the command's `checkInputs`.
    func checkInputs() throws {
        if let type { try InputValidation.check(type, "--type", in: 0...Int(UInt32.max)) }
        if let creator { try InputValidation.check(creator, "--creator", in: 0...Int(UInt32.max)) }
        _ = try AttributeArgument(name: "account", text: account, hex: accountHex).value()
        _ = try AttributeArgument(name: "service", text: service, hex: serviceHex).value()
        try internet.checkInputs()
        try key.checkInputs()
    }

    /// The query (after ``checkInputs()``, which refuses bad hex).
    var query: KeychainQuery {
        let accountValue = (try? AttributeArgument(name: "account", text: account, hex: accountHex).value()) ?? nil
        let serviceValue = (try? AttributeArgument(name: "service", text: service, hex: serviceHex).value()) ?? nil
        return KeychainQuery(
            group: group, account: accountValue?.key, service: serviceValue?.key, generic: generic.map { Data($0.utf8) },
            type: type.flatMap(UInt32.init(exactly:)),
            filters: ItemQuery.Filters(
                label: label, comment: comment, itemDescription: description, creator: creator.flatMap(UInt32.init(exactly:)),
                addedBy: addedBy, accessibility: accessible,
                synchronizable: synchronizable, itemClass: itemClass, internet: internet.fields, key: key.fields))
    }
}

/// The values `item update` sets: `--new-<attribute>` for each attribute, so that the plain
/// names stay filters on every command.
struct ItemChangeOptions: ParsableArguments {
    @Option(name: .customLong("new-account"), help: ArgumentHelp("Set the account (a new primary key).", valueName: "account"))
    var account: String?

    @Option(name: .customLong("new-account-hex"), help: ArgumentHelp("Set the account to bytes (Data), in hex.", valueName: "hex"))
    var accountHex: String?

    @Option(name: .customLong("new-service"), help: ArgumentHelp("Set the service (a new primary key).", valueName: "service"))
    var service: String?

    @Option(name: .customLong("new-service-hex"), help: ArgumentHelp("Set the service to bytes (Data), in hex.", valueName: "hex"))
    var serviceHex: String?

    @OptionGroup(title: "Internet passwords") var internet: InternetChangeOptions

    @Option(name: .customLong("new-generic"), help: ArgumentHelp("Set the generic attribute, as text.", valueName: "text"))
    var generic: String?

    @Option(name: .customLong("new-type"), help: ArgumentHelp("Set the type attribute (kSecAttrType), an integer from 0 to 4294967295.", valueName: "type"))
    var type: Int?

    @Option(name: .customLong("new-creator"), help: ArgumentHelp("Set the creator attribute (kSecAttrCreator), an integer from 0 to 4294967295.", valueName: "creator"))
    var creator: Int?

    @Option(name: .customLong("new-label"), help: ArgumentHelp("Set the label.", valueName: "label"))
    var label: String?

    @Option(name: .customLong("new-comment"), help: ArgumentHelp("Set the comment.", valueName: "comment"))
    var comment: String?

    @Option(name: .customLong("new-description"), help: ArgumentHelp("Set the description.", valueName: "description"))
    var description: String?

    @Option(name: .customLong("new-accessible"), help: ArgumentHelp("Set the class (kSecAttrAccessible); the device's lock applies to the new class.", valueName: "class"))
    var accessible: Accessibility?

    @Option(name: .customLong("new-synchronizable"), help: ArgumentHelp("Set the synchronizable flag.", valueName: "bool"))
    var synchronizable: Bool?

    func checkInputs() throws {
        if let type { try InputValidation.check(type, "--new-type", in: 0...Int(UInt32.max)) }
        if let creator { try InputValidation.check(creator, "--new-creator", in: 0...Int(UInt32.max)) }
        try internet.checkInputs()
    }

    /// The change, with `data` as the new data when given.
    func change(data: Data?, ifVersion: UInt64?) throws -> ItemChange {
        let newAccount = try AttributeArgument(name: "new-account", text: account, hex: accountHex).value()
        let newService = try AttributeArgument(name: "new-service", text: service, hex: serviceHex).value()
        return ItemChange(
            account: newAccount?.key, service: newService?.key, generic: generic.map { Data($0.utf8) },
            type: type.flatMap(UInt32.init(exactly:)), label: label, comment: comment, itemDescription: description,
            creator: creator.flatMap(UInt32.init(exactly:)), accessibility: accessible, synchronizable: synchronizable, data: data,
            ifVersion: ifVersion, accountIsData: newAccount?.isData ?? false, serviceIsData: newService?.isData ?? false,
            internet: internet.fields)
    }
}

/// Where new data comes from: exactly one of `--data`, `--data-file` and `--stdin`. Standard
/// input is read only when asked for, so a forgotten or empty pipe never becomes the secret.
struct DataOptions: ParsableArguments {
    @Option(help: "The data, as text. Beware: it shows in the process list and shell history.")
    var data: String?

    @Option(name: .customLong("data-file"), help: ArgumentHelp("Read the data from this file (binary safe).", valueName: "file"))
    var dataFile: String?

    @Flag(help: "Read the data from standard input, to its end (binary safe; empty input is refused).")
    var stdin = false

    func validate() throws {
        let sources = [data != nil, dataFile != nil, stdin].filter { $0 }.count
        if sources > 1 { throw ValidationError("give only one of --data, --data-file and --stdin") }
    }

    /// Whether a source was given.
    var isGiven: Bool { data != nil || dataFile != nil || stdin }

    /// The data from the source given, or nil when none was.
    func read() throws -> Data? {
        if let data { return Data(data.utf8) }
        if let dataFile { return try InputValidation.readDocument(at: URL(fileURLWithPath: dataFile), field: "--data-file") }
        guard stdin else { return nil }
        if isatty(STDIN_FILENO) == 1 {
            throw UsageFailure(message: "--stdin: standard input is a terminal; pipe the data in, or use --data or --data-file")
        }
        let bytes = FileHandle.standardInput.readDataToEndOfFile()
        guard !bytes.isEmpty else {
            throw UsageFailure(message: "--stdin: standard input was empty; nothing was written (to store empty data, pass --data '')")
        }
        try InputValidation.checkSize(bytes, field: "standard input")
        return bytes
    }

    /// The data, which the command cannot do without.
    func required() throws -> Data {
        guard let bytes = try read() else {
            throw UsageFailure(message: "no data: give --data TEXT, --data-file FILE or --stdin")
        }
        return bytes
    }
}

/// `--dry-run` on every command that deletes: show what would go, delete nothing.
struct DryRunOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Show what would be deleted (attributes only), and delete nothing.")
    var dryRun = false

    /// Prints `items` as the ones that would be deleted: a table, or JSON with `--json`.
    func show(_ items: [KeychainItem], json: Bool) {
        if json {
            Output.printJSON(["dryRun": DryRunJSON(wouldDelete: items.map { ItemJSON($0, includeData: false) })])
            return
        }
        Output.standardOutput.write(ItemJSON.table(items))
        Output.standardOutput.write("would delete \(items.count.counted("item")) (dry run: nothing was deleted)\n")
    }

    private struct DryRunJSON: Encodable {
        let wouldDelete: [ItemJSON]
    }
}
