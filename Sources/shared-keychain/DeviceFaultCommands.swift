import ArgumentParser
import Device
import Foundation
import SharedKeychain

struct DeviceFaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Faults on demand: a plan, kept in the state directory, that fails chosen SecItem calls with a status of your choice.",
        discussion: """
            Every keychain made on this device reads the plan before each call: commands, SecItem code run with \
            SHARED_KEYCHAIN_STATE_DIR, and load workers, in any process. A count is shared by all of them: --count 1 \
            fails exactly one call. A failed call reads and writes nothing; --trace marks it [injected], load reports \
            count it as injected, and `device fault list` shows what each rule matched and injected.
            """,
        subcommands: [DeviceFaultAddCommand.self, DeviceFaultListCommand.self, DeviceFaultClearCommand.self]
    )
}

struct DeviceFaultAddCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a rule: fail --call (for --group, --app) with --status, for --count calls, --every Nth call or with --probability.",
        discussion: "Example: shared-keychain device fault add --call SecItemCopyMatching --status errSecInteractionNotAllowed --count 1"
    )

    @Option(help: ArgumentHelp("The SecItem function: SecItemAdd, SecItemCopyMatching, SecItemUpdate or SecItemDelete.", valueName: "function"))
    var call: String

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The status it returns, by name or number: errSecInteractionNotAllowed (-25308), errSecMissingEntitlement (-34018), errSecDuplicateItem (-25299), errSecDecode (-26275), errSecIO (-36), errSecItemNotFound (-25300), errSecUserCanceled (-128), ...",
        valueName: "status"))
    var status: String

    @Option(help: ArgumentHelp("Only calls on this access group, in full (TEAM.group). Default: any group.", valueName: "group"))
    var group: String?

    @Option(help: ArgumentHelp("Only calls made as this bundle ID. Default: any app.", valueName: "bundle-id"))
    var app: String?

    @Option(help: ArgumentHelp("Fail the next N matching calls, across all processes.", valueName: "N"))
    var count: Int?

    @Option(help: ArgumentHelp("Fail every Nth matching call (1: every one) until the plan is cleared.", valueName: "N"))
    var every: Int?

    @Option(help: ArgumentHelp("Fail each matching call with probability P, in (0, 1].", valueName: "P"))
    var probability: Double?

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let rule = try FaultRule(call: call, status: status, group: group, app: app, count: count, every: every, probability: probability)
        let added = try global.device.faultPlan.add(rule)
        if global.json {
            Output.printJSON(added)
        } else {
            Output.standardOutput.write("added fault rule \(added.number): \(FaultRuleText(added).summary)\n")
        }
    }
}

struct DeviceFaultListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the fault plan's rules, with the calls each matched and failed.")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let plan = try global.device.faultPlan.read()
        if global.json {
            Output.printJSON(plan.rules)
            return
        }
        let rows = plan.rules.map { rule in
            let text = FaultRuleText(rule)
            return ["\(rule.number)", rule.function.rawValue, text.status, rule.group ?? "any", rule.app ?? "any", text.trigger, "\(rule.matched)", "\(rule.injected)"]
        }
        if !rows.isEmpty {
            Output.standardOutput.write(
                TextTable(header: ["RULE", "CALL", "STATUS", "GROUP", "APP", "WHEN", "MATCHED", "INJECTED"], rows: rows).rendered)
        }
        Output.standardOutput.write("\(plan.rules.count.counted("fault rule"))\n")
    }
}

struct DeviceFaultClearCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every rule of the fault plan: calls run as they would.")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let removed = try global.device.faultPlan.clear()
        if global.json {
            Output.printJSON(["removed": removed])
        } else {
            Output.standardOutput.write("removed \(removed.counted("fault rule"))\n")
        }
    }
}

/// A rule's columns as text.
private struct FaultRuleText {
    let rule: FaultRule

    init(_ rule: FaultRule) { self.rule = rule }

    var status: String { "\(rule.status.name) (\(rule.status.rawValue))" }

    var trigger: String { rule.isSpent ? "\(rule.trigger) (spent)" : "\(rule.trigger)" }

    /// `SecItemCopyMatching in any group, as any app -> errSecInteractionNotAllowed (-25308), next 1 call`.
    var summary: String {
        "\(rule.function.rawValue) in \(rule.group ?? "any group"), as \(rule.app ?? "any app") -> \(status), \(trigger)"
    }
}
