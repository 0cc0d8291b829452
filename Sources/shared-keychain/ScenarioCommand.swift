import ArgumentParser

struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run scenario files: steps for a suite's apps, one after another or at once, with background jobs and assertions.",
        subcommands: [ScenarioRunCommand.self]
    )
}
