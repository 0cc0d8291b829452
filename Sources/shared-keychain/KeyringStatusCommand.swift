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
