import ArgumentParser
import Foundation
import SuiteManifest

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

            Rules:
            \(CheckRule.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("suite"), help: ArgumentHelp(
        "The manifest: a YAML or JSON file, or a directory holding suite.yaml.", valueName: "path"))
    var suitePath = "suite"

    @Flag(help: "Fail on warnings too.")
    var strict = false

    func execute() throws {
        let suite = try SuiteManifest.load(from: URL(fileURLWithPath: suitePath))
        let report = SuiteChecker.check(suite)
        if global.json {
            Output.printJSON(report)
        } else {
            Output.standardOutput.write(report.text)
        }
        if let failure = SuiteCheckFailure(report, strict: strict) { throw failure }
    }
}
