import ArgumentParser
import Foundation
import KeychainStorage
import LoadGeneration
import SecretServiceStorage
import SharedKeychain
import Synchronization
import TokenCache

extension KeychainStatus {
    /// The process exit code for a failure with this status: distinct per status, documented
    /// in the command-line guide (SharedKeychain.docc/CommandLine.md), stable for scripts.
    var exitCode: Int32 {
        switch self {
        case .success: 0
        case .param: 10
        case .itemNotFound: 11
        case .duplicateItem: 12
        case .missingEntitlement: 13
        case .interactionNotAllowed: 14
        case .notAvailable: 15
        case .io: 16
        case .decode: 17
        case .versionConflict: 18
        case .authFailed: 19
        case .userCanceled: 22
        }
    }
}

/// A failure the CLI itself reports, with the status that fits it.
struct CommandFailure: StatusReporting {
    let status: KeychainStatus
    let message: String
}

/// A failure of the CLI's own (bad input it reads itself), reported like a Keychain status.
struct UsageFailure: StatusReporting, CustomStringConvertible {
    let message: String
    var status: KeychainStatus { .param }
    var description: String { message }
}

/// A command whose failures are reported with their Keychain status: text or JSON on standard
/// error, and the status's exit code.
protocol ReportingCommand: ParsableCommand {
    /// ``GlobalOptions`` for commands that use keychain items, ``BasicOptions`` for the others.
    associatedtype Options: CommandOptions
    var global: Options { get }
    /// Range and consistency checks of the command's own options, run before ``execute()``;
    /// a failure is errSecParam (exit 10) and nothing is touched.
    func checkInputs() throws
    func execute() throws
}

extension ReportingCommand {
    func checkInputs() throws {}

    func run() throws {
        do {
            try global.check()
            try checkInputs()
            try execute()
        } catch let error as any StatusReporting {
            throw report(status: error.status, message: error.message, code: error.errorCode)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw report(status: .io, message: "\(error)")
        }
    }

    private func report(status: KeychainStatus, message: String, code: String? = nil) -> ExitCode {
        ErrorBody.write(status: status, message: message, code: code, json: global.json)
        // MSAL's interaction_required is what a caller most needs to tell from "not found".
        return ExitCode(code == "interaction_required" ? 20 : status.exitCode)
    }
}

/// A failure as the CLI prints it on standard error: `error: <name> (<status>): <message>`, or
/// with `--json` `{"error": {"status", "name", "code", "message"}}`.
struct ErrorBody: Encodable {
    static func write(status: KeychainStatus, message: String, code: String? = nil, json: Bool) {
        if json {
            let body = ErrorBody(error: .init(status: status.rawValue, name: status.name, code: code, message: message))
            Output.standardError.write(Output.json(body) + "\n")
        } else {
            // Messages quote values items and manifests control, cut where they are long; no
            // control character of one reaches the terminal whatever built the message.
            Output.standardError.write("error: \(status.name) (\(status.rawValue)): \(DisplayText(message, limit: .max))\n")
        }
    }

    struct Detail: Encodable {
        let status: Int32
        let name: String
        let code: String?
        let message: String
    }
    let error: Detail
}

/// Writing to standard output and error.
enum Output {
    struct Stream: Sendable {
        let handle: FileHandle
        func write(_ text: String) { write(Data(text.utf8)) }
        /// A reader that went away (`| head`) ends the output, not the process.
        func write(_ data: Data) { try? handle.write(contentsOf: data) }
    }

    static let standardOutput = Stream(handle: .standardOutput)
    static let standardError = Stream(handle: .standardError)

    /// `value` as JSON with sorted keys; `pretty: false` for one line (NDJSON).
    static func json(_ value: some Encodable, pretty: Bool = true) -> String {
        let encoder = jsonEncoder(pretty: pretty)
        // Encoding our own plain value types cannot fail; fall back to an empty object if it did.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func printJSON(_ value: some Encodable) {
        standardOutput.write(json(value) + "\n")
    }

    /// The encoder of ``json(_:pretty:)``: sorted keys, ISO 8601 dates, slashes as they are.
    static func jsonEncoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Prints `elements` as ``printJSON(_:)`` prints an array of them, the same bytes, encoded
    /// and written one element at a time: a listing of 10,000 items is never held whole.
    static func printJSONArray<Elements: Sequence>(_ elements: Elements) where Elements.Element: Encodable {
        // Encoding our own plain value types cannot fail, and standard output's writes do not throw.
        try? PrettyJSONArray.write(elements, encoder: jsonEncoder(pretty: true), to: standardOutput.write)
        standardOutput.write("\n")
    }

    /// Prints any report by one rule: its encoding with `--json`, else its text.
    static func print(_ report: some TextReport, json: Bool) {
        if json { printJSON(report) } else { standardOutput.write(report.text) }
    }

    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Refuses an output path (`option` names it) where something other than a regular file
    /// exists: checked before any work, so nothing is read, written or replaced.
    static func checkOutputPath(_ path: String, option: String) throws {
        do { try PrivateFile.checkReplaceable(URL(fileURLWithPath: path)) } catch {
            throw UsageFailure(message: "\(option): \(error.description)")
        }
    }

    /// Writes `data` to the output file `path` (0600, through a temporary file and a rename).
    static func writeFile(_ data: Data, to path: String, option: String) throws {
        try writeFile(chunks: [data], to: path, option: option)
    }

    /// Writes `chunks` one after another to the output file `path`, as ``writeFile(_:to:option:)``
    /// writes one `Data`: a big output is not copied to join them.
    static func writeFile(chunks: [Data], to path: String, option: String) throws {
        do {
            try PrivateFile.write(to: URL(fileURLWithPath: path)) { append in
                for chunk in chunks { try append(chunk) }
            }
        } catch {
            throw UsageFailure(message: "\(option): \(error.description)")
        }
    }
}

extension PrivateKeyringError: StatusReporting {
    // No keyring to talk to: Keychain Services' "no keychain is available"; an unusable state
    // directory is the caller's input, errSecParam.
    public var status: KeychainStatus {
        if case .stateDirectory = self { return .param }
        return .notAvailable
    }
    public var message: String { description }
}

/// A live progress line on standard error: rewritten in place on a terminal, one line a
/// second otherwise (CI logs). Long runs show it from the start; a command that is usually
/// quick (`cache import`, `scenario run`) shows it only once it has run `quietFor` seconds.
final class ProgressLine: Sendable {
    private let started = Date()
    private let quietFor: Double
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let lastLine = Mutex<Date>(.distantPast)
    private let shown = Mutex(false)
    /// The line for `count` done after `elapsed` seconds.
    private let render: @Sendable (_ count: Int, _ elapsed: Double) -> String

    /// - Parameter quietFor: seconds before the first line; `SHARED_KEYCHAIN_PROGRESS_AFTER`
    ///   in the environment overrides it (tests set 0 to see the line of a short run).
    init(quietFor: Double = 0, render: @escaping @Sendable (_ count: Int, _ elapsed: Double) -> String) {
        let override = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_PROGRESS_AFTER"].flatMap(Double.init)
        self.quietFor = override.map { $0.isFinite ? max(0, $0) : quietFor } ?? quietFor
        self.render = render
    }

    /// `load 2 apps: 4.1/11 s, 812 calls, 198/s`.
    convenience init(label: String, expected configuration: LoadConfiguration) {
        let byCalls = configuration.operations.map { $0 * configuration.apps }
        let seconds = configuration.warmup + configuration.duration
        self.init { calls, elapsed in
            let done = byCalls.map { "\(calls)/\($0) calls" } ?? String(format: "%.1f/%.0f s", min(elapsed, seconds), seconds)
            let rate = elapsed > 0 ? Int(Double(calls) / elapsed) : 0
            return "load \(label): \(done), \(calls) calls, \(rate)/s"
        }
    }

    /// `cache import: 12000/50000 items, 410/s`, from `quietFor` seconds on.
    static func counting(_ what: String, of total: Int, unit: String, quietFor: Double = 2) -> ProgressLine {
        ProgressLine(quietFor: quietFor) { count, elapsed in
            let rate = elapsed > 0 ? Int(Double(count) / elapsed) : 0
            return "\(what): \(count)/\(total) \(unit), \(rate)/s"
        }
    }

    func update(_ count: Int) {
        let elapsed = Date().timeIntervalSince(started)
        guard elapsed >= quietFor else { return }
        let due = lastLine.withLock { last -> Bool in
            // A terminal line is cheap to rewrite, but not a thousand times a second.
            guard Date().timeIntervalSince(last) >= (isTerminal ? 0.1 : 1) else { return false }
            last = Date()
            return true
        }
        guard due else { return }
        shown.withLock { $0 = true }
        let line = render(count, elapsed)
        Output.standardError.write(isTerminal ? "\r\u{1B}[K\(line)" : "\(line)\n")
    }

    func finish() {
        if isTerminal, shown.withLock({ $0 }) { Output.standardError.write("\n") }
    }

    /// Runs `body`, showing from `quietFor` seconds on how far its reads of many items have
    /// come (`snapshot: read 4000/10000 items, 1900/s`): a big group's snapshot, list or export
    /// spends its time in them.
    static func whileReading<T>(_ what: String, quietFor: Double = 2, _ body: () throws -> T) throws -> T {
        let total = ReadTotal()
        let line = ProgressLine(quietFor: quietFor) { count, elapsed in
            let rate = elapsed > 0 ? Int(Double(count) / elapsed) : 0
            return "\(what): read \(count)/\(total.value.load(ordering: .relaxed)) items, \(rate)/s"
        }
        defer { line.finish() }
        let observer = ReadProgress { read, of in
            total.value.store(of, ordering: .relaxed)
            line.update(read)
        }
        return try ReadProgress.$observer.withValue(observer) { try body() }
    }
}

/// The size of the read ``ProgressLine/whileReading(_:quietFor:_:)`` shows, as its store last
/// reported it.
private final class ReadTotal: Sendable {
    let value = Atomic(0)
}

/// Spellings that keep working for one release after a rename, each with a note on standard
/// error so scripts can be fixed before they stop working.
enum Deprecation {
    static func note(old: String, new: String) {
        Output.standardError.write("warning: \(old) is deprecated and goes away in the next release; use \(new)\n")
    }
}

extension Output {
    /// One line on standard error for an item a read skipped (its value cannot be decoded):
    /// where it is and why, never its data; a JSON object with `--json`.
    static func warn(skipped item: SkippedItem, json: Bool) {
        guard !json else {
            let fields = ["warning": "skipped an unreadable item", "group": item.group, "account": item.account, "service": item.service, "reason": item.reason]
            standardError.write(Output.json(fields, pretty: false) + "\n")
            return
        }
        let place = "account '\(DisplayText(item.account))' service '\(DisplayText(item.service))' in \(DisplayText(item.group))"
        standardError.write("warning: skipped the unreadable item \(place): \(DisplayText(item.reason))\n")
    }
}
