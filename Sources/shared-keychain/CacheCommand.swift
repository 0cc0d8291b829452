import ArgumentParser
import Foundation
import SharedKeychain
import TokenCache

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Export and import the group's tokens in MSAL's serialized JSON cache format (MSAL Python, Java, .NET); convert the emulator's earlier layout.",
        subcommands: [CacheExportCommand.self, CacheImportCommand.self, CacheConvertLayoutCommand.self]
    )
}

struct CacheExportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write what this app sees of its group as an MSAL JSON cache (it holds token secrets: keep it private)."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("key-style"), help: ArgumentHelp(
        "How entry keys are spelled: \(CacheKeyStyle.allCases.map(\.rawValue).joined(separator: " or ")). msal-python (default): MSAL Python's keys, refresh tokens keyed with their target and one per user and client. sharedkeychain-v1: the shape earlier versions wrote.",
        valueName: "style"))
    var keyStyle: CacheKeyStyle = .msalPython

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func checkInputs() throws {
        if let output { try Output.checkOutputPath(output, option: "--output") }
    }

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        let result = try ProgressLine.whileReading("cache export") { try cache.exportCacheReporting(keyStyle: keyStyle) }
        // A text file ends with a newline, on standard output and in a file alike; written after
        // the cache, not joined to a copy of it.
        let newline = Data("\n".utf8)
        // Standard output is the cache itself; what was left out goes to standard error.
        if result.legacyItemsLeftOut > 0 {
            Output.standardError.write(
                "left out \(result.legacyItemsLeftOut.counted("ADAL legacy item")) (MSOpenTech.ADAL.1): MSAL's JSON format has no place for them\n")
        }
        guard let output else {
            Output.standardOutput.write(result.data)
            Output.standardOutput.write(newline)
            return
        }
        try Output.writeFile(chunks: [result.data, newline], to: output, option: "--output")
        Output.standardError.write("exported to \(output)\n")
    }
}

struct CacheImportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write the entries of an MSAL JSON cache into this app's group; the input is checked whole before anything is written."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: ArgumentHelp("The MSAL JSON cache to read; - reads standard input.", valueName: "file"))
    var input: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let data: Data
        if input == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
            guard !data.isEmpty else { throw UsageFailure(message: "--input -: standard input was empty; nothing was written") }
            try InputValidation.checkSize(data, field: "standard input")
        } else {
            data = try InputValidation.readDocument(at: URL(fileURLWithPath: input), field: "--input")
        }
        let cache = try tokens.tokenCache(global, app: app)
        var progress: ProgressLine?
        let result = try cache.importCacheReporting(data) { written, total in
            if progress == nil { progress = .counting("cache import", of: total, unit: "items") }
            progress?.update(written)
        }
        progress?.finish()
        if global.json {
            Output.printJSON(["imported": result.written, "legacy_items_left_out": result.legacyItemsLeftOut])
        } else {
            Output.standardOutput.write("imported \(result.written.counted("item"))\n")
            if result.legacyItemsLeftOut > 0 {
                Output.standardOutput.write(
                    "left out \(result.legacyItemsLeftOut.counted("ADAL legacy item")) already in the group (MSOpenTech.ADAL.1): MSAL's JSON format carries none, so they stay as they were\n")
            }
        }
    }
}

struct CacheConvertLayoutCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert-layout",
        abstract: "Convert the sign-in states an earlier version of this emulator kept (one item per account, type 4001) into each client's account metadata (type 5001), as MSAL keeps them.",
        discussion: "Run once on a group an earlier version wrote: ordinary commands no longer read those records (no SDK makes that read), so until then a signed-out state kept only there is not seen. A state already in the client's account metadata wins; the old records are deleted. Removals convert the records they meet."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions
    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let converted = try tokens.tokenCache(global, app: app).convertEarlierLayout()
        if global.json {
            Output.printJSON(["converted": converted])
        } else {
            Output.standardOutput.write("converted \(converted.counted("sign-in record")) of the earlier layout\n")
        }
    }
}

extension CacheKeyStyle: ExpressibleByArgument {}
