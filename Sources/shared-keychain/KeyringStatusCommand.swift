import ArgumentParser
import SecretServiceStorage

struct KeyringStatusCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the private keyring runs, its daemon's pid and its D-Bus address.",
        discussion: "Other tools reach the same store through the address: DBUS_SESSION_BUS_ADDRESS=<bus> secret-tool search access-group <group>"
    )

    @OptionGroup var global: GlobalOptions

    func execute() throws {
        Self.print(KeychainSession.privateKeyring(global).status(), json: global.json)
    }

    static func print(_ status: KeyringStatus, json: Bool) {
        if json {
            Output.printJSON(status)
            return
        }
        guard status.running else {
            Output.standardOutput.write("private keyring: stopped (state in \(status.stateDirectory))\n")
            return
        }
        Output.standardOutput.write("""
            private keyring: running
              pid:   \(status.pid.map(String.init) ?? "?")
              bus:   \(status.bus)
              state: \(status.stateDirectory)

            """)
    }
}
