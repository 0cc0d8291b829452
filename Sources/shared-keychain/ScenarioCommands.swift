import ArgumentParser
import Device
import Foundation
import Synchronization
import KeychainStorage
import Scenarios
import TokenCache

struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run scenario files: steps for a suite's apps, one after another or at once, with background jobs and assertions.",
        subcommands: [ScenarioRunCommand.self]
    )
}

struct ScenarioRunCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario: each app in a process of its own (default) or all in this one, with a timeline and a verdict per assertion.",
        discussion: """
            A scenario (YAML or JSON) names a suite manifest and lists steps:

              suite: ../suite \
            steps:
                - {app: com.contoso.mail, do: token signin, user: alice@contoso.com} \
            - {background: refresh, app: com.contoso.mail, do: token acquire, \
            account: alice@contoso.com, silent: true, every: 50ms}
                - {wait: {job: refresh, runs: 3}} \
            - {app: com.contoso.calendar, do: token wipe, expect: ok} \
            - {wait: {job: refresh, runs: 6}} \
            - {stop: refresh, expect: {failed: {at-least: 1}}}

            Steps: an operation (app, do, its parameters, expect); concurrent (a list of \
            operations started at once, each with an optional delay); background NAME (an \
            operation repeated every DURATION, times N or until stopped); wait (a duration, or \
            {job: NAME, runs: N}); stop NAME (expect: {runs, ok, failed}); advance-clock \
            DURATION (every app's token clock, to expire access tokens).

            Operations (do): \(OperationKind.allCases.map(\.rawValue).joined(separator: ", ")). \
            Parameters are the CLI's: account, service, group, data, generic, type, label, user, \
            tenant, scopes, silent, wipe-account. item increment/counter keep a decimal counter \
            (service "counter" by default).

            expect: ok, a status name (errSecItemNotFound) or number (-34018), \
            interaction_required, or {status, count, value}; counts take N or {at-least, at-most}.

            The timeline (time, step, app, operation, outcome) prints as the run goes; item data \
            and tokens never do. A scenario's `policy` (as policy.json) turns on mitigations. \
            Exits 0 when every assertion holds, 21 when one fails, 10 for a bad scenario.
            """
    )

    @Option(help: ArgumentHelp("The scenario file (YAML or JSON).", valueName: "file"))
    var scenario: String?

    @Argument(help: .hidden)
    var deprecatedFile: String?

    @Option(help: ArgumentHelp("A suite manifest (file or directory) to use instead of the scenario's own.", valueName: "file"))
    var suite: String?

    @Flag(name: .customLong("in-process"), help: "Run every app on a thread of this process instead of a process of its own.")
    var inProcess = false

    @Flag(help: "Empty every group the scenario's apps can reach before the run (what is there is deleted).")
    var fresh = false

    /// The exit code when an assertion fails.
    static let assertionFailedExitCode: Int32 = 21

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    /// `--scenario`, or the positional file earlier versions took.
    private func scenarioFile() throws -> String {
        if let deprecatedFile {
            guard scenario == nil else { throw UsageFailure(message: "give the scenario once, with --scenario FILE") }
            Deprecation.note(old: "`scenario run FILE`", new: "`scenario run --scenario FILE`")
            return deprecatedFile
        }
        guard let scenario else { throw UsageFailure(message: "which scenario? give --scenario FILE (YAML or JSON; examples/scenarios has some)") }
        return scenario
    }

    func execute() throws {
        let file = try scenarioFile()
        let scenarioURL = URL(fileURLWithPath: file)
        let scenario = try Scenario.load(from: scenarioURL, suite: suite.map { URL(fileURLWithPath: $0) })
        if global.keyring == .memory && !inProcess {
            throw UsageFailure(message: "--keyring memory keeps items inside one process: add --in-process, or use the private keyring")
        }
        let store = try global.openStore()
        let json = global.json
        let runner = ScenarioRunner(
            scenario: scenario, store: store, device: global.deviceControl,
            skippedItems: SkippedItemReport { Output.warn(skipped: $0, json: json) }, faults: global.device.faultPlan)
        if fresh {
            let emptied = try runner.emptyGroups()
            Output.standardError.write("emptied the scenario's groups: \(emptied.counted("item")) deleted\n")
        }
        let timeline = ScenarioTimelineText(scenario: scenario)
        if !global.json {
            Output.standardOutput.write(timeline.header(mode: inProcess ? "in process" : "as processes", store: store.name))
        }
        // Past 2 s, a count on standard error: a step of 2,000 concurrent operations takes a while.
        let finished = Atomic<Int>(0)
        let progress = ProgressLine(quietFor: 2) { count, elapsed in
            "scenario \(scenario.name): \(count.counted("operation")) done in \(Int(elapsed)) s"
        }
        let report = try runner.run(launcher: inProcess ? .inProcess : .processes(executable: GlobalOptions.executable, arguments: workerArguments(file: file))) { event in
            if !json { Output.standardOutput.write(timeline.line(event)) }
            progress.update(finished.add(1, ordering: .relaxed).newValue)
        }
        progress.finish()
        Output.print(report, json: json)
        if !report.passed { throw ExitCode(Self.assertionFailedExitCode) }
    }

    /// An app process: this tool as `scenario-worker` on the same storage.
    private func workerArguments(file: String) -> @Sendable (String) -> [String] {
        let common = global.workerArguments
        let path = URL(fileURLWithPath: file).path
        let suite = suite.map { URL(fileURLWithPath: $0).path }
        return { bundleID in
            ["scenario-worker", "--scenario", path, "--app", bundleID] + common + (suite.map { ["--suite", $0] } ?? [])
        }
    }
}

/// The hidden app-process side of `scenario run`.
struct ScenarioWorkerCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "scenario-worker", shouldDisplay: false)

    @Option var scenario: String
    @Option var app: String
    @Option var suite: String?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let loaded = try Scenario.load(from: URL(fileURLWithPath: scenario), suite: suite.map { URL(fileURLWithPath: $0) })
        let json = global.json
        ScenarioWorker.serve(
            scenario: loaded, bundleID: app, store: try global.openStore(),
            skippedItems: SkippedItemReport { Output.warn(skipped: $0, json: json) }, faults: global.device.faultPlan)
    }
}

