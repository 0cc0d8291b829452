import Foundation
import Testing

/// The files the tool writes and the state files it reads (issue 19, finding 1 and parts of 6):
/// an output path that is not a regular file is refused and left untouched, outputs and state
/// files are owner-only, and a damaged state file is named in the error.
@Suite("End to end: files the tool writes", .serialized)
struct FileSafetyTests {
    let cli: CLI
    let team = "ABCDE12345"
    let group = "ABCDE12345.com.microsoft.adalcache"
    let entitlements: String

    init() throws {
        cli = try CLI()
        entitlements = try cli.entitlements("mail", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
    }

    var mail: [String] { ["--app", "com.contoso.mail", "--team", team, "--entitlements", entitlements] }

    enum Special: String, CaseIterable {
        case fifo, symlink, directory
    }

    /// Makes `kind` at a new path; a symlink points to a file holding `original`.
    func make(_ kind: Special, named name: String) throws -> (path: String, target: URL?) {
        let path = cli.fixtures.appendingPathComponent(name).path
        switch kind {
        case .fifo:
            try #require(mkfifo(path, 0o600) == 0)
            return (path, nil)
        case .symlink:
            let target = cli.fixtures.appendingPathComponent("\(name)-target")
            try Data("original".utf8).write(to: target)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
            return (path, target)
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            return (path, nil)
        }
    }

    func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test func outputsThatAreNotRegularFilesAreRefusedAndLeftUntouched() throws {
        defer { cli.tearDown() }
        let added = try cli.run(["item", "add", "--account", "alice", "--service", "s", "--data", "secret-1"] + mail)
        try #require(added.status == 0, "\(added.standardError)")
        for kind in Special.allCases {
            for (index, command) in [["snapshot", "--admin", "--group", group], ["cache", "export"] + mail].enumerated() {
                let (path, target) = try make(kind, named: "\(kind)-\(index)")
                let before = fileType(path)
                let result = try cli.run(command + ["--output", path])
                #expect(result.status == 10, "\(command[0]) --output \(kind): \(result.standardError)")
                #expect(result.standardError.contains("not a regular file"), "\(result.standardError)")
                #expect(!result.standardError.contains("secret-1"))
                #expect(fileType(path) == before, "\(command[0]) replaced the \(kind)")
                if let target { #expect(try String(contentsOf: target, encoding: .utf8) == "original") }
            }
        }
    }

    @Test func outputsAndStateFilesAreOwnerOnly() throws {
        defer { cli.tearDown() }
        #expect(try cli.run(["item", "add", "--account", "alice", "--service", "s", "--data", "x"] + mail).status == 0)
        let snapshot = cli.fixtures.appendingPathComponent("out/snapshot.json").path
        let snapshotRun = try cli.run(["snapshot", "--admin", "--group", group, "--output", snapshot])
        #expect(snapshotRun.status == 0, "\(snapshotRun.standardError)")
        #expect(mode(snapshot) == 0o600)
        #expect(mode(cli.fixtures.appendingPathComponent("out").path) == 0o700)

        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        #expect(mode(suite + "/suite.yaml") == 0o600)
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "lock"]).status == 0)
        let device = cli.stateDirectory.appendingPathComponent("device").path
        #expect(mode(device) == 0o700)
        #expect(mode(device + "/apps.json") == 0o600)
        #expect(mode(device + "/lock.json") == 0o600)
        // No temporary files are left beside them.
        let left = try FileManager.default.contentsOfDirectory(atPath: device).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }

    @Test func aDamagedLockFileIsNamedNotTakenForALockedDevice() throws {
        defer { cli.tearDown() }
        #expect(try cli.run(["device", "unlock"]).status == 0)
        let lockFile = cli.stateDirectory.appendingPathComponent("device/lock.json")
        try Data("{ not json".utf8).write(to: lockFile)
        let result = try cli.run(["item", "list"] + mail)
        #expect(result.status == 10, "\(result.standardError)")
        #expect(result.standardError.contains(lockFile.path), "\(result.standardError)")
        #expect(!result.standardError.contains("the device is locked"))
        #expect(result.standardError.contains("device unlock"))
    }

    @Test func stateFilesAreNeverFollowedOrWaitedOn() throws {
        defer { cli.tearDown() }
        #expect(try cli.run(["device", "unlock"]).status == 0)
        let lockFile = cli.stateDirectory.appendingPathComponent("device/lock.json").path
        let registry = cli.stateDirectory.appendingPathComponent("device/apps.json").path
        try FileManager.default.removeItem(atPath: lockFile)
        try #require(mkfifo(lockFile, 0o600) == 0)
        // A FIFO would block a plain open for reading forever: the command must end, refused.
        let status = try cli.run(["device", "status"])
        #expect(status.status == 10, "\(status.standardError)")
        #expect(status.standardError.contains("FIFO"))
        try FileManager.default.removeItem(atPath: lockFile)

        let elsewhere = cli.fixtures.appendingPathComponent("elsewhere.json")
        try Data("[]".utf8).write(to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: registry, withDestinationPath: elsewhere.path)
        let apps = try cli.run(["device", "apps"])
        #expect(apps.status == 10, "\(apps.standardError)")
        #expect(apps.standardError.contains("symbolic link"))
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 10)
        #expect(try String(contentsOf: elsewhere, encoding: .utf8) == "[]")
    }
}
