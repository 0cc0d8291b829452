import ArgumentParser

struct KeyringStopCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop the private keyring's daemons. Items stay in the state directory."
    )

    @OptionGroup var global: GlobalOptions

    func execute() throws {
        let status = try KeychainSession.privateKeyring(global).stop()
        if global.json {
            KeyringStatusCommand.print(status, json: true)
        } else {
            Output.standardOutput.write("private keyring stopped\n")
        }
    }
}
