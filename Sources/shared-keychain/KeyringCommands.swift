import ArgumentParser
import Device
import SecretServiceStorage

struct KeyringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring",
        abstract: "Start, stop and inspect the private keyring (a gnome-keyring on a private D-Bus bus).",
        discussion: """
            Item commands start the private keyring on first use; it keeps running, so items \
            persist between commands like a device's keychain, until `keyring stop`. Its items \
            live in the state directory and survive a stop and a restart.
            """,
        subcommands: [KeyringStartCommand.self, KeyringStopCommand.self, KeyringStatusCommand.self]
    )
}

struct KeyringStartCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start the private keyring, or reuse the one running; prints its status."
    )

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let keyring = global.device.privateKeyring(logger: global.logger)
        try keyring.start()
        // Asked again with the probe, so a hung daemon shows as "not responding".
        let status = keyring.status()
        Output.print(status, json: global.json)
    }
}

struct KeyringStopCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop the private keyring's daemons. Items stay in the state directory."
    )

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let status = try global.device.privateKeyring(logger: global.logger).stop()
        if global.json {
            Output.printJSON(status)
        } else {
            Output.standardOutput.write("private keyring stopped\n")
        }
    }
}

struct KeyringStatusCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the private keyring runs, its daemon's pid and its D-Bus address.",
        discussion: "Other tools reach the same store through the address: DBUS_SESSION_BUS_ADDRESS=<bus> secret-tool search access-group <group>"
    )

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        Output.print(global.device.privateKeyring(logger: global.logger).status(), json: global.json)
    }
}
