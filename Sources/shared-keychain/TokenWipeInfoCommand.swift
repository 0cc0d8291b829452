import ArgumentParser
import Foundation
import SharedKeychain
import TokenCache

struct TokenWipeInfoCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe-info",
        abstract: "Show the wipe record: which app last wiped tokens, and when."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        let record = try cache.wipeInfo()
        let interrupted = try cache.interruptedDeletions()
        if global.json {
            Output.printJSON(WipeInfoJSON(record: record, interrupted: interrupted))
        } else {
            Output.standardOutput.write((record.map(\.description) ?? "no wipe recorded") + "\n")
            for deletion in interrupted { Output.standardOutput.write("\(deletion)\n") }
        }
    }
}

private struct WipeInfoJSON: Encodable {
    let bundleId: String?
    let wipeTime: Date?
    /// Deletions whose process died before they finished.
    let interrupted: [IntentJournal.Interrupted]
    init(record: WipeRecord?, interrupted: [IntentJournal.Interrupted]) {
        bundleId = record?.bundleID
        wipeTime = record?.wipeTime
        self.interrupted = interrupted
    }
}
