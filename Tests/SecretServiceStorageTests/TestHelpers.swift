import Foundation
import KeychainStorage
import KeychainTestSupport
import Logging
import SecretServiceStorage
import Synchronization

/// Small builders and process helpers shared by the Secret Service tests.
enum Fixture {
    /// A fixed base date with a fractional part, so exact date round trips are checked.
    static let epoch = Date(timeIntervalSinceReferenceDate: 785_000_000.123_456)

    static func item(
        _ group: String, _ account: String, _ service: String = "service",
        generic: Data? = nil, type: UInt32? = nil, label: String? = nil, creator: UInt32? = nil, provenance: Provenance? = nil,
        at offset: Double = 0, data: Data = Data("secret".utf8)
    ) -> StoredItem {
        StoredItem(
            group: group, account: account, service: service, generic: generic, type: type, label: label,
            creator: creator, provenance: provenance, creationDate: epoch.addingTimeInterval(offset),
            modificationDate: epoch.addingTimeInterval(offset), data: data)
    }

    static func all(_ groups: String...) -> ItemQuery { ItemQuery(groups: groups) }

    /// A fresh state directory for a keyring of the test's own.
    static func stateDirectory(_ name: String = "keyring") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sk-\(name)-\(UUID().uuidString.prefix(8))")
    }
}

/// Runs `secret-tool` against a given bus (never the user's).
enum SecretTool {
    struct Output {
        var status: Int32
        var text: String
    }

    static func run(_ arguments: [String], bus: String, input: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus
        process.environment = environment
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, text: String(decoding: data, as: UTF8.self))
    }
}

/// Collects what a store logs at warning level and above: what a person running the CLI would
/// read on standard error.
final class WarningLog: Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .warning
        return logger
    }

    private struct Handler: LogHandler {
        let log: WarningLog
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.message)") }
        }
    }
}
