import Foundation
import KeychainStorage
import KeychainTestSupport
import Testing

/// The repository's example suite and scenarios, copied to a temporary directory under a team
/// ID no other test uses, so tests sharing one private keyring stay apart.
struct Examples {
    let directory: URL

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A fresh copy; `team` replaces the examples' `ABCDE12345`.
    init() throws {
        team = TestBackend.uniqueTeamID()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-scenarios-\(UUID().uuidString.prefix(8))")
        let examples = Self.repository.appendingPathComponent("examples")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for folder in ["suite", "scenarios"] {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(folder), to: directory.appendingPathComponent(folder))
        }
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "yaml" {
            let text = try String(contentsOf: file, encoding: .utf8)
            try text.replacingOccurrences(of: "ABCDE12345", with: team).write(to: file, atomically: true, encoding: .utf8)
        }
    }

    let team: String

    /// An example scenario's file.
    func scenario(_ name: String) -> URL {
        directory.appendingPathComponent("scenarios/\(name).yaml")
    }

    /// Writes a scenario of the example suite with these steps (YAML) and returns its file.
    func write(_ name: String, steps: String, extra: String = "") throws -> URL {
        let file = directory.appendingPathComponent("scenarios/\(name).yaml")
        try "suite: ../suite\n\(extra)steps:\n\(steps)".write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The shared group of the copy's team.
    var sharedGroup: String { "\(team).com.microsoft.adalcache" }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

typealias Backend = TestBackend
