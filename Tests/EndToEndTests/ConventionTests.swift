import Foundation
import Testing

/// One CLI convention everywhere: paths as options, durations with units, options only where
/// they apply, old spellings kept for a release with a note.
@Suite("End to end: the CLI's convention")
struct ConventionTests {
    @Test func versionAndCompletion() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let version = try cli.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.split(separator: ".").count == 3)
        let completion = try cli.run(["--generate-completion-script", "bash"])
        #expect(completion.status == 0)
        #expect(completion.output.contains("shared-keychain"))
    }

    @Test func durationsTakeUnitsAndBareNumbersStaySeconds() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let app = ["--app", "com.contoso.durations", "--team", "ABCDE12345"]
        #expect(try cli.run(["item", "add", "--account", "a", "--service", "s", "--data", "x", "--timeout", "2500ms"] + app).status == 0)
        #expect(try cli.run(["item", "get", "--account", "a", "--timeout", "3"] + app).output == "x")
        let bad = try cli.run(["item", "get", "--account", "a", "--timeout", "soon"] + app)
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("--timeout"))
        let tooLong = try cli.run(["item", "get", "--account", "a", "--timeout", "2h"] + app)
        #expect(tooLong.status == 10)
        let load = try cli.run(["load", "--threads", "--apps", "1", "--duration", "300ms", "--warmup", "0s", "--items", "5", "--keyring", "memory", "--json"])
        #expect(load.status == 0, "\(load.standardError)")
        #expect((try load.jsonObject()["seconds"] as? Double).map { $0 < 5 } == true)
    }

    /// Every command's `--help` reads as one text wrapped once: a discussion written with its
    /// own line breaks gets broken a second time at 80 columns, leaving a word stranded on a
    /// line of its own ("for a group the / app is not entitled to").
    @Test func helpParagraphsAreWrappedOnce() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        var pending: [[String]] = [[]]
        var checked = 0
        while let path = pending.popLast() {
            let help = try cli.run(path + ["--help"])
            #expect(help.status == 0, "\(path) --help failed")
            let lines = help.output.components(separatedBy: "\n")
            // Subcommands: the names listed under SUBCOMMANDS.
            if let start = lines.firstIndex(of: "SUBCOMMANDS:") {
                for line in lines[(start + 1)...] {
                    guard line.hasPrefix("  "), !line.hasPrefix("   ") else {
                        if line.isEmpty || line.hasPrefix("  See") { break } else { continue }
                    }
                    if let name = line.split(separator: " ").first, name != "help" { pending.append(path + [String(name)]) }
                }
            }
            // The overview and discussion: everything before USAGE.
            let text = lines.prefix { !$0.hasPrefix("USAGE:") }
            for (line, next) in zip(text, text.dropFirst()) {
                let plain = { (line: String) in !line.isEmpty && !line.hasPrefix(" ") && !line.hasPrefix("-") && !line.hasPrefix("{") && !line.hasPrefix("$") }
                guard plain(line), plain(next), let word = next.split(separator: " ").first else { continue }
                #expect(line.count + 1 + word.count >= 80, "\(path.joined(separator: " ")) --help breaks a line early: '\(line)' / '\(next)'")
            }
            checked += 1
        }
        #expect(checked > 30)
    }

    @Test func optionsAppearOnlyWhereTheyApply() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let refused = try cli.run(["keyring", "status", "--keyring", "memory"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("--keyring"))
        #expect(!(try cli.run(["suite", "check", "--help"]).output.contains("--keyring")))
        #expect(try cli.run(["item", "get", "--help"]).output.contains("--keyring"))
        // An item in memory is gone when the command ends: said where people look.
        let memory = try cli.run(["item", "add", "--account", "a", "--service", "s", "--data", "x", "--keyring", "memory", "--app", "com.contoso.m", "--team", "ABCDE12345"])
        #expect(memory.status == 0)
        #expect(memory.standardError.contains("this process only"))
    }

    @Test func oldSpellingsStillWorkWithANote() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite").path
        let old = try cli.run(["suite", "init", suite])
        #expect(old.status == 0)
        #expect(old.standardError.contains("deprecated"))
        #expect(old.standardError.contains("--suite"))
        let new = try cli.run(["suite", "init", "--suite", cli.fixtures.appendingPathComponent("other").path])
        #expect(new.status == 0)
        #expect(!new.standardError.contains("deprecated"))
        let report = cli.fixtures.appendingPathComponent("report").path
        let load = try cli.run(["load", "--threads", "--apps", "1", "--duration", "200ms", "--warmup", "0", "--items", "3", "--keyring", "memory", "--report", report])
        #expect(load.status == 0, "\(load.standardError)")
        #expect(load.standardError.contains("--output"))
        #expect(FileManager.default.fileExists(atPath: report + "/report.json"))
        let scenario = try cli.run(["scenario", "run"])
        #expect(scenario.status == 10)
        #expect(scenario.standardError.contains("--scenario"))
    }
}
