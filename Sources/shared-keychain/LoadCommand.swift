import ArgumentParser
import Device
import Foundation
import LoadGeneration
import SharedKeychain
import TokenCache

struct LoadCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load-test the shared keychain with simulated apps reading, writing and wiping one group.",
        discussion: """
            The apps share a group of the run's own, <team>.sharedkeychain-load.<run id>, which \
            no other app uses: load never touches data it did not write, and deletes that group \
            at the end (an interrupted run may leave it behind; delete it with `item delete \
            --all` as an app entitled to it). Every app owns --items keys in the group; reads \
            pick any app's keys, wipes delete the whole group. Apps run as separate processes \
            (default) or as threads (--threads). After the run the group is listed once and \
            every acknowledged write must be there, or deleted by an acknowledged delete or \
            wipe: lost updates and resurrected items are counted, and any of them, or any \
            unexpected error, makes the exit status non-zero.

            --group names an existing group instead (to load a group with a mitigation policy, \
            say). A group that holds items is refused (errSecParam, exit 10, nothing deleted) \
            unless --allow-existing-data is given too; even then every app's calls go through \
            the group's mitigation policy (--policy, or policy.json in the state directory), so \
            guarded delete refuses wipes of other apps' items (counted as the expected outcome \
            "refused by policy") and an audited group journals every delete. At the end only \
            what the simulated apps created is removed.

            --apps takes a list (1,2,4,8) to sweep; --output DIR then writes report.json and \
            a chart of throughput and p99 against the number of apps (load.svg), mode 0600 in a \
            directory created 0700; a path there that is a symbolic link, FIFO or device is \
            refused. Durations take units (500ms, 10s, 2m); a bare number is seconds.
            """
    )

    @Option(help: ArgumentHelp("Simulated apps; a comma-separated list runs one load per count.", valueName: "n[,n...]"))
    var apps: String = "4"

    @Flag(help: "Run the apps as threads of this process instead of separate processes.")
    var threads = false

    @Option(help: ArgumentHelp(
        "What the apps do: items (keychain items) or token (the MSAL token cache). token: each app signs in its own users (--items of them), acquires silently, refreshes, removes accounts and now and then wipes the group, with MSAL's write pattern (the report gives the keychain writes and reads per operation, from the trace counters); the check at the end lists the accounts and every acknowledged sign-in must be there unless a removal or wipe came after it. The apps share one client ID, so, as on a device, one app's read-modify-write of the client's account-metadata item can lose another's entry: counted apart, as expected on a device, not as a lost sign-in.",
        valueName: "workload"))
    var workload: LoadConfiguration.Workload = .items

    @Option(help: ArgumentHelp(
        "Operation mix in percent. items: \(LoadConfiguration.Workload.items.operations.map(\.rawValue).joined(separator: ", ")); token: \(LoadConfiguration.Workload.token.operations.map(\.rawValue).joined(separator: ", ")). Default for items: \(LoadConfiguration.Workload.items.defaultMix); for token: \(LoadConfiguration.Workload.token.defaultMix). In the items workload, acquire gets a token for the app's own user from the MSAL cache in the group, signing in again after a wipe took it (counted as interaction_required).",
        valueName: "op=pct,..."))
    var mix: String?

    @Option(help: "Items each app owns in the shared group (token workload: users each app signs in).")
    var items: Int = 20

    @Option(name: .customLong("prefill-accounts"), help: ArgumentHelp(
        "Token workload: accounts signed in before the measured phase.", valueName: "n"))
    var prefillAccounts: Int = 0

    @Option(help: ArgumentHelp(
        "Open loop: start this many operations per second in total, on a fixed schedule, and measure latency from each one's intended start (corrected for coordinated omission). Default: closed loop.",
        valueName: "ops"))
    var rate: Double?

    @Option(name: .customLong("value-size"), help: "Bytes of data per item.")
    var valueSize: Int = 256

    @Option(parsing: .unconditional, help: ArgumentHelp("Measured load per app count: 500ms, 10s, 2m; a bare number is seconds.", valueName: "duration"))
    var duration = WrittenDuration(seconds: 10)

    @Option(help: "Operations per app instead of a duration.")
    var operations: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Unmeasured warm-up before each measured phase: 500ms, 1s; a bare number is seconds.", valueName: "duration"))
    var warmup = WrittenDuration(seconds: 1)

    @Option(help: "Seed for the apps' random choices (runs repeat for a seed).")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Team ID of the simulated apps. Default: --group's team, else LOADTEST01.", valueName: "team-id"))
    var team: String?

    @Option(help: ArgumentHelp(
        "Run in this existing access group instead of a group of the run's own (<team>.sharedkeychain-load.<run id>). A group holding items needs --allow-existing-data.",
        valueName: "group"))
    var group: String?

    @Flag(name: .customLong("allow-existing-data"), help: ArgumentHelp(
        "With --group: run even though the group holds items load did not write. Its mitigation policy still applies to every app, and wipes delete what the policy lets them."))
    var allowExistingData = false

    @OptionGroup var policy: AuditPolicyOptions

    @Option(help: ArgumentHelp("Write report.json and load.svg into this directory.", valueName: "dir"))
    var output: String?

    @Option(name: .customLong("report"), help: .hidden)
    var deprecatedReport: String?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        if allowExistingData, group == nil {
            throw UsageFailure(message: "--allow-existing-data goes with --group: without it load runs in a group of its own, which holds nothing else")
        }
        for count in try appCounts() { try configuration(apps: count).validate() }
        if let directory = try outputDirectory() {
            try PrivateFile.checkWritable(directory: URL(fileURLWithPath: directory, isDirectory: true), files: Self.outputFiles)
        }
    }

    /// The files `--output` writes.
    static let outputFiles = ["report.json", "load.svg"]

    /// `--team`, else `--group`'s team, else LOADTEST01.
    private var teamID: String {
        if let team { return team }
        if let group, let parsed = try? AccessGroup(group) { return parsed.teamID.rawValue }
        return "LOADTEST01"
    }

    /// The run for `apps` apps, as the options describe it.
    private func configuration(apps: Int) throws -> LoadConfiguration {
        LoadConfiguration(
            apps: apps, workload: workload, mix: try OperationMix(parsing: mix ?? workload.defaultMix), itemsPerApp: items,
            valueSize: valueSize, duration: duration.seconds, operations: operations, warmup: warmup.seconds, seed: seed, team: teamID,
            prefillAccounts: prefillAccounts, rate: rate, group: group, allowExistingData: allowExistingData)
    }

    func execute() throws {
        let counts = try appCounts()
        if global.keyring == .memory && !threads {
            throw UsageFailure(message: "--keyring memory keeps items inside one process: add --threads, or use the private keyring")
        }
        let session = try global.session(policy: policy)
        var reports: [LoadReport] = []
        for count in counts {
            let configuration = try configuration(apps: count)
            if configuration.prefillAccounts > 0 {
                Output.standardError.write("signing in \(configuration.prefillAccounts) accounts before the run...\n")
            }
            // Every simulated app goes through the group's mitigation policy, as `item delete` does.
            let runner = try LoadRunner(configuration: configuration, keychains: session.keychains)
            let progress = ProgressLine(label: "\(count.counted("app"))", expected: configuration)
            let result = threads
                ? try runner.runInThreads(progress: progress.update)
                : try runner.runInProcesses(fleet: fleet, progress: progress.update)
            progress.finish()
            reports.append(result)
        }
        if let directory = try outputDirectory() { try write(reports, to: URL(fileURLWithPath: directory, isDirectory: true)) }
        // Items another app wrote that the apps' caches could not read: each named once.
        var skipped = Set<SkippedItem>()
        for item in reports.flatMap(\.skippedItems) where skipped.insert(item).inserted {
            Output.warn(skipped: item, json: global.json)
        }
        Output.print(LoadSweep(reports), json: global.json)
        if !reports.allSatisfy(\.passed) {
            throw CommandFailure(status: .io, message: "the load run lost data or hit unexpected errors (see the report)")
        }
    }

    private func appCounts() throws -> [Int] {
        let counts = apps.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        let limits = LoadConfiguration.Limits.apps
        guard !counts.isEmpty, counts.count <= 16, counts.allSatisfy({ $0.map(limits.contains) ?? false }) else {
            throw UsageFailure(
                message: "--apps takes up to 16 whole numbers from \(limits.lowerBound) to \(limits.upperBound), like 4 or 1,2,4,8; got '\(apps)'")
        }
        return counts.compactMap { $0 }
    }

    /// Workers are this executable, run as `load-worker` on the same storage; each is sent its
    /// configuration and policy as they are (``WorkerProtocol``).
    private var fleet: WorkerFleet {
        WorkerFleet(executable: GlobalOptions.executable, arguments: ["load-worker"] + global.workerArguments)
    }

    /// `--output`, or the deprecated `--report`, which still works for one release.
    private func outputDirectory() throws -> String? {
        guard let deprecatedReport else { return output }
        guard output == nil else { throw UsageFailure(message: "give --output (or the deprecated --report), not both") }
        Deprecation.note(old: "--report DIR", new: "--output DIR")
        return deprecatedReport
    }

    /// Writes report.json and load.svg, each 0600 and whole (a temporary file renamed over it),
    /// creating the directory 0700.
    private func write(_ reports: [LoadReport], to directory: URL) throws {
        try PrivateFile.createDirectory(directory)
        try PrivateFile.write(Data(Output.json(reports).utf8), to: directory.appendingPathComponent("report.json"))
        try PrivateFile.write(Data(LoadChart(reports: reports).svg.utf8), to: directory.appendingPathComponent("load.svg"))
    }
}

/// The hidden worker side of `load`: one simulated app in its own process, on the storage the
/// options name, running the configuration its fleet sends.
struct LoadWorkerCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "load-worker", shouldDisplay: false)

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        // The fleet sends the policy with the configuration: the worker reads no policy file.
        try WorkerProtocol.serve(store: try global.openStore(), faults: global.device.faultPlan)
    }
}

extension LoadConfiguration.Workload: ExpressibleByArgument {}
