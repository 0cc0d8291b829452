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
        KeyringStatusCommand.print(status, json: global.json)
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
            KeyringStatusCommand.print(status, json: true)
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
        Self.print(global.device.privateKeyring(logger: global.logger).status(), json: global.json)
    }

    static func print(_ status: KeyringStatus, json: Bool) {
        if json {
            Output.printJSON(status)
            return
        }
        switch status.state {
        case .stopped:
            Output.standardOutput.write("private keyring: stopped (state in \(status.stateDirectory))\n")
            return
        case .notResponding:
            Output.standardOutput.write("""
                private keyring: not responding (gnome-keyring-daemon, pid \(status.pid.map(String.init) ?? "?"), did not answer within 2 s: stopped or hung)
                  bus:   \(status.bus)
                  state: \(status.stateDirectory)
                  fix:   resume it (kill -CONT \(status.pid.map(String.init) ?? "PID")), or `shared-keychain keyring stop` then `keyring start`

                """)
            return
        case .running:
            break
        }
        Output.standardOutput.write("""
            private keyring: running
              pid:   \(status.pid.map(String.init) ?? "?")
              bus:   \(status.bus)
              state: \(status.stateDirectory)

            """)
    }
}
