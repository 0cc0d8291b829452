import Foundation
import Testing

/// `load --output DIR`: private files, written whole, and no path that is not what it seems.
@Suite("End to end: load --output")
struct LoadOutputTests {
    private let quickRun = ["load", "--threads", "--keyring", "memory", "--apps", "1", "--duration", "200ms", "--warmup", "0", "--items", "3"]

    private func mode(_ path: String) throws -> Int {
        var info = stat()
        try #require(lstat(path, &info) == 0, "cannot stat \(path)")
        return Int(info.st_mode & 0o777)
    }

    @Test("the directory is created 0700, report.json and load.svg 0600, and no temporary file stays behind")
    func outputIsPrivate() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let directory = cli.fixtures.appendingPathComponent("reports/run1")
        let load = try cli.run(quickRun + ["--output", directory.path])
        #expect(load.status == 0, "\(load.standardError)")
        #expect(try mode(directory.path) == 0o700)
        #expect(try mode(directory.deletingLastPathComponent().path) == 0o700)
        #expect(try mode(directory.appendingPathComponent("report.json").path) == 0o600)
        #expect(try mode(directory.appendingPathComponent("load.svg").path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["load.svg", "report.json"])

        // A second run replaces the files, still 0600.
        #expect(try cli.run(quickRun + ["--output", directory.path]).status == 0)
        #expect(try mode(directory.appendingPathComponent("report.json").path) == 0o600)
    }

    @Test("--output naming a FIFO, a symlink, or a directory whose report.json is a symlink is refused and left as it is")
    func unexpectedPathsAreRefused() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let fifo = cli.fixtures.appendingPathComponent("fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let real = cli.fixtures.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = cli.fixtures.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let trap = cli.fixtures.appendingPathComponent("trap")
        try FileManager.default.createDirectory(at: trap, withIntermediateDirectories: true)
        let victim = cli.fixtures.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: trap.appendingPathComponent("report.json"), withDestinationURL: victim)

        for path in [fifo.path, link.path, trap.path] {
            let load = try cli.run(quickRun + ["--output", path])
            #expect(load.status == 10, "\(path): \(load.standardError)")
            #expect(load.standardError.contains(path) || load.standardError.contains("report.json"), "\(load.standardError)")
        }
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: trap.appendingPathComponent("report.json").path) == victim.path)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: trap.path) == ["report.json"])
    }
}
