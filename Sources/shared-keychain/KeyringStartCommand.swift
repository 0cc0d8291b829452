import ArgumentParser

struct KeyringStartCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start the private keyring, or reuse the one running; prints its status."
    )

    @OptionGroup var global: GlobalOptions

    func execute() throws {
        let status = try KeychainSession.privateKeyring(global).start()
        KeyringStatusCommand.print(status, json: global.json)
    }
}
