import ArgumentParser
import Foundation
import SuiteManifest

struct SuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "Write and check suite manifests: the apps that share sign-in through one keychain group.",
        discussion: """
            A suite manifest (YAML or JSON, or a directory holding suite.yaml) declares each app: \
            bundle ID, team, client ID, redirect URI, keychain sharing group, broker use, and its \
            entitlements and Info.plist (paths to real plists, or inline). `suite init` writes an \
            example; `suite check` applies the rules for cross-app sign-in to it; `suite blast-radius` \
            shows which app can destroy which other app's sign-in, and by which call; `suite intune-check` \
            looks up a user's token where an app's Intune App SDK reads it.
            """,
        subcommands: [SuiteInitCommand.self, SuiteCheckCommand.self, SuiteBlastRadiusCommand.self, SuiteIntuneCheckCommand.self]
    )
}

struct SuiteInitCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write an example three-app suite (suite.yaml and real plists) that passes `suite check`.",
        discussion: """
            Contoso Mail, Calendar and Notes under team \(ExampleSuite.teamID), sharing one client ID \
            and com.microsoft.adalcache, each with an entitlements.plist and an Info.plist. If any \
            of the files exists, nothing is written unless --force is given.

            --apps N writes a generated suite of N apps instead, as one suite.yaml with the plists \
            inline, for trying `suite blast-radius` at size: every ten apps, six MSAL apps share \
            com.microsoft.adalcache, a client ID and family 1, one is an ADAL app in that group, one \
            an MSAL app there with a second client ID, one keeps its cache in a group of its own and \
            uses the broker, and one keeps its own group but lists the shared one in its entitlements.
            """
    )

    @Option(name: .customLong("suite"), help: ArgumentHelp("Where to write the suite; created if needed.", valueName: "dir"))
    var suite: String?

    @Argument(help: .hidden)
    var deprecatedDirectory: String?

    @Flag(help: "Overwrite files that exist.")
    var force = false

    @Option(help: ArgumentHelp("Write a generated suite of this many apps (plists inline) instead of the three-app example.", valueName: "n"))
    var apps: Int?

    @OptionGroup(title: "Output") var global: BasicOptions

    /// `--suite`, or the positional directory earlier versions took; `suite` by default.
    private func resolvedDirectory() throws -> String {
        guard let deprecatedDirectory else { return suite ?? "suite" }
        guard suite == nil else { throw UsageFailure(message: "give the directory once, with --suite DIR") }
        Deprecation.note(old: "`suite init DIR`", new: "`suite init --suite DIR`")
        return deprecatedDirectory
    }

    func execute() throws {
        let directory = try resolvedDirectory()
        let target = URL(fileURLWithPath: directory, isDirectory: true)
        if let apps, apps < 1 { throw UsageFailure(message: "--apps takes a number of apps of at least 1, not \(apps)") }
        let written = try apps.map { try ExampleSuite.writeGenerated(apps: $0, to: target, force: force) }
            ?? ExampleSuite.write(to: target, force: force)
        // Paths as the user spelled the directory, so they can be pasted back.
        let paths = written.map { (directory as NSString).appendingPathComponent(String($0.path.dropFirst(target.path.count + 1))) }
        if global.json {
            Output.printJSON(Written(directory: directory, files: paths))
            return
        }
        Output.standardOutput.write("""
            wrote \(paths.count) files:
            \(paths.map { "  \($0)" }.joined(separator: "\n"))
            check it with: shared-keychain suite check --suite \(directory)

            """)
    }

    private struct Written: Encodable {
        let directory: String
        let files: [String]
    }
}

struct SuiteCheckCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a suite manifest against the rules for sharing sign-in across apps.",
        discussion: """
            Prints each app's findings (severity, rule ID, message) and a summary line, or with \
            --json one object: {manifest, apps, findings: [{severity, rule, app, message}], \
            summary: {errors, warnings, info}, passed}.

            Exit status: 0 when there is no error (warnings and info do not fail, unless \
            --strict); 10 (errSecParam) when there are errors, after the report is printed, or \
            when the manifest cannot be read.

            Rules: \
            \(CheckRule.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
            """
    )

    @Option(name: .customLong("suite"), help: ArgumentHelp(
        "The manifest: a YAML or JSON file, or a directory holding suite.yaml.", valueName: "path"))
    var suitePath = "suite"

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let suite = try SuiteManifest.load(from: URL(fileURLWithPath: suitePath))
        let report = SuiteChecker.check(suite)
        Output.print(report, json: global.json)
        if let failure = SuiteCheckFailure(report, strict: strict) { throw failure }
    }
}

struct SuiteBlastRadiusCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "blast-radius",
        abstract: "Show which app of a suite can destroy which other app's sign-in, and by which call.",
        discussion: """
            Computed from the manifest alone (each app's cache group, entitlements, client ID and \
            family); nothing runs. The table's rows are the apps making a call, its columns (by \
            number) the apps whose sign-in goes; a cell holds the letters of the calls, - for none. \
            An app's own sign-in (the diagonal, "self") is not counted: removing it is what the \
            calls are for. Below the table and its legend, each call is listed with why it reaches \
            a sign-in and which app it lets reach which others. A suite whose apps keep their caches in per-app groups and sign in through \
            the broker shows an empty matrix.

            Calls: \
            \(DestructiveCall.allCases.map { "  \($0.code) \($0.rawValue) (\($0.api)): \($0.summary)" }.joined(separator: "\n"))

            --json prints one object: {manifest, suite, apps: [{app, name, keychain_group, \
            client_id, family_id, signs_in}], calls: [{call, code, api, summary}], cells: \
            [{attacker, victim, ways: [{call, group, reason}]}], summary: {apps, pairs, \
            exposed_pairs, ways}, empty}, and when an app has the Intune App SDK intune_enrolment: \
            {readers: [{app, group, reads_cache}], exposures: [{attacker, app, group, calls}]}, the \
            other apps that can delete the token its Intune reads; cells lists only the pairs with a way, attacker and \
            victim by bundle ID. --output FILE.svg also writes the matrix as an SVG (mode 0600), \
            each cell naming its calls, with a legend; a suite of more than \(BlastRadius.svgAppRowLimit) apps is \
            drawn by groups of apps that share the same exposure (each group's apps listed under \
            the legend), so the page stays readable. `suite init --apps N` writes a suite of N \
            apps to try it on.

            Exit status: 0 when the report is printed, whatever it shows; 10 (errSecParam) when \
            the manifest cannot be read or is invalid, or --output names something other than a \
            regular file (then nothing is written).
            """
    )

    @Option(name: .customLong("suite"), help: ArgumentHelp(
        "The manifest: a YAML or JSON file, or a directory holding suite.yaml.", valueName: "path"))
    var suitePath = "suite"

    @Option(help: ArgumentHelp("Also write the matrix as an SVG to this file (mode 0600, replaced if it exists).", valueName: "file.svg"))
    var output: String?

    @OptionGroup(title: "Output") var global: BasicOptions

    func checkInputs() throws {
        if let output { try Output.checkOutputPath(output, option: "--output") }
    }

    func execute() throws {
        let radius = try BlastRadius(SuiteManifest.load(from: URL(fileURLWithPath: suitePath)))
        if let output { try Output.writeFile(Data(radius.svg.utf8), to: output, option: "--output") }
        Output.print(radius, json: global.json)
        if let output { Output.standardError.write("wrote the matrix to \(output) (SVG)\n") }
    }
}
