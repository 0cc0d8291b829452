import ArgumentParser
import Foundation
import SharedKeychain

/// The attributes that select items: `--account`, `--service`, `--group`.
struct ItemSelectionOptions: ParsableArguments {
    @Option(help: "Match this account (kSecAttrAccount).")
    var account: String?

    @Option(help: "Match this service (kSecAttrService).")
    var service: String?

    @Option(help: ArgumentHelp("Only this access group, in full (TEAMID.com.x) or as $(AppIdentifierPrefix)com.x. Default: all the app's groups.", valueName: "group"))
    var group: String?

    var query: KeychainQuery { KeychainQuery(group: group, account: account, service: service) }
}

/// Where new data comes from: `--data`, `--data-file`, or standard input.
struct DataOptions: ParsableArguments {
    @Option(help: "The data, as text. Beware: it shows in the process list and shell history.")
    var data: String?

    @Option(name: .customLong("data-file"), help: ArgumentHelp("Read the data from this file (binary safe).", valueName: "file"))
    var dataFile: String?

    func validate() throws {
        if data != nil, dataFile != nil { throw ValidationError("give --data or --data-file, not both") }
    }

    /// The data; standard input is read to its end when neither option is given.
    func read() throws -> Data {
        if let data { return Data(data.utf8) }
        if let dataFile {
            do { return try Data(contentsOf: URL(fileURLWithPath: dataFile)) } catch {
                throw UsageFailure(message: "cannot read --data-file '\(dataFile)': \((error as NSError).localizedDescription)")
            }
        }
        if isatty(STDIN_FILENO) == 1 {
            throw UsageFailure(message: "no data: give --data, --data-file, or pipe the data to standard input")
        }
        return FileHandle.standardInput.readDataToEndOfFile()
    }
}
