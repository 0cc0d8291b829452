import ArgumentParser
import Foundation
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
        let record = try tokens.tokenCache(global, app: app).wipeInfo()
        if global.json {
            Output.printJSON(WipeInfoJSON(record: record))
        } else {
            Output.standardOutput.write((record.map(\.description) ?? "no wipe recorded") + "\n")
        }
    }
}

private struct WipeInfoJSON: Encodable {
    let bundleId: String?
    let wipeTime: Date?
    init(record: WipeRecord?) {
        bundleId = record?.bundleID
        wipeTime = record?.wipeTime
    }
}
