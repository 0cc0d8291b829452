import ArgumentParser
import Foundation
import KeychainStorage
import SharedKeychain

struct ItemAddCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item (SecItemAdd). Fails with errSecDuplicateItem if account + service + group exists."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions

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
        "When the item can be used (kSecAttrAccessible): whenUnlocked (default), afterFirstUnlock, always, whenPasscodeSetThisDeviceOnly, whenUnlockedThisDeviceOnly, afterFirstUnlockThisDeviceOnly or alwaysThisDeviceOnly.",
        discussion: "While the device is locked (`device lock`), whenUnlocked* and whenPasscodeSet* items fail with errSecInteractionNotAllowed (-25308); afterFirstUnlock* items work once the device was unlocked after its last reboot.",
        valueName: "class"))
    var accessible: Accessibility = .whenUnlocked

    @OptionGroup var input: DataOptions

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
