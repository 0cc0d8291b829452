import ArgumentParser
import Foundation
import SuiteManifest

struct SuiteInitCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write an example three-app suite (suite.yaml and real plists) that passes `suite check`.",
        discussion: """
            Contoso Mail, Calendar and Notes under team \(ExampleSuite.teamID), sharing one client ID \
            and com.microsoft.adalcache, each with an entitlements.plist and an Info.plist. If any \
            of the files exists, nothing is written unless --force is given.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Where to write the suite; created if needed.", valueName: "dir"))
    var directory = "suite"

    @Flag(help: "Overwrite files that exist.")
    var force = false

    func execute() throws {
        let target = URL(fileURLWithPath: directory, isDirectory: true)
        let written = try ExampleSuite.write(to: target, force: force)
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
