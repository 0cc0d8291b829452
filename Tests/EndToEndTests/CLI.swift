import Foundation
import Synchronization
import Testing

/// Runs the built `shared-keychain` binary as a separate process, the way scripts use it. Each
/// instance has its own state directory, so its private keyring is its own.
struct CLI: Sendable {
    struct Result: Sendable {
        let status: Int32
        let standardOutput: Data
        let standardError: String
        var output: String { String(decoding: standardOutput, as: UTF8.self) }

        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: standardOutput)
        }

        func jsonObject() throws -> [String: Any] {
            try #require(try json() as? [String: Any], "expected a JSON object, got: \(output)")
        }

        func jsonArray() throws -> [[String: Any]] {
            try #require(try json() as? [[String: Any]], "expected a JSON array of objects, got: \(output)")
        }
    }

    let stateDirectory: URL
    let fixtures: URL

    init() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sk-e2e-\(UUID().uuidString.prefix(8))")
        stateDirectory = root.appendingPathComponent("state")
        fixtures = root.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
    }

    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_BIN"] { return URL(fileURLWithPath: path) }
        // The test bundle sits next to the products of the same build.
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return buildDirectory.appendingPathComponent("shared-keychain")
    }

    /// Writes an entitlements plist naming `groups` and returns its path.
    func entitlements(_ name: String, groups: [String]) throws -> String {
        let url = fixtures.appendingPathComponent("\(name).entitlements")
        let data = try PropertyListSerialization.data(fromPropertyList: ["keychain-access-groups": groups], format: .xml, options: 0)
        try data.write(to: url)
        return url.path
    }

    /// Runs several invocations at the same moment and waits for all of them.
    func runConcurrently(_ invocations: [[String]]) throws -> [Result] {
        let results = Mutex<[Int: Result]>([:])
        let failures = Mutex<[any Error]>([])
        DispatchQueue.concurrentPerform(iterations: invocations.count) { index in
            do {
                let result = try run(invocations[index])
                results.withLock { $0[index] = result }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
        return results.withLock { dictionary in invocations.indices.compactMap { dictionary[$0] } }
    }

    @discardableResult
    func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = Self.executable
        var arguments = arguments
        // Common options go after the subcommand's name.
        arguments += ["--state-dir", stateDirectory.path]
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        env.removeValue(forKey: "SHARED_KEYCHAIN_STATE_DIR")
        env.merge(environment) { $1 }
        process.environment = env
        // Output goes to files, so a chatty child can never block on a full pipe.
        let outURL = fixtures.appendingPathComponent("out-\(UUID().uuidString)")
        let errURL = fixtures.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: try Data(contentsOf: outURL),
                      standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// A CLI process running in the background; its standard error is read as it comes.
    struct Running {
        let process: Process
        let errors: Pipe

        /// Reads standard error until `text` appears or the process closes it; returns what it read.
        @discardableResult
        func waitForStandardError(containing text: String) -> String {
            var seen = ""
            while !seen.contains(text) {
                let chunk = errors.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            return seen
        }
    }

    /// Starts `arguments` without waiting; standard output goes to `output` (else nowhere).
    func start(_ arguments: [String], environment: [String: String] = [:], output: URL? = nil) throws -> Running {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments + ["--state-dir", stateDirectory.path]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        env.removeValue(forKey: "SHARED_KEYCHAIN_STATE_DIR")
        env.merge(environment) { $1 }
        process.environment = env
        if let output {
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        return Running(process: process, errors: errors)
    }

    /// Stops this instance's private keyring and removes its files.
    func tearDown() {
        _ = try? run(["keyring", "stop"])
        try? FileManager.default.removeItem(at: stateDirectory.deletingLastPathComponent())
    }
}

/// Runs an external tool (secret-tool, kill) and returns its exit status and output.
func runTool(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
