import Foundation
import Testing

/// Bad input through the real binary: a clear error with errSecParam (or the status that
/// applies), the tool's own exit status and never a signal, and nothing written.
@Suite("Input safety (CLI)", .serialized)
struct InputSafetyTests {
    let cli: CLI
    let team = "ABCDE12345"
    let entitlements: String

    init() throws {
        cli = try CLI()
        entitlements = try cli.entitlements("mail", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
    }

    var mail: [String] { ["--app", "com.contoso.mail", "--team", team, "--entitlements", entitlements] }

    func add(_ account: String, data: String) throws {
        let added = try cli.run(["item", "add", "--account", account, "--service", "s", "--data", data] + mail)
        try #require(added.status == 0, "add failed: \(added.standardError)")
    }

    func data(of account: String) throws -> String {
        try cli.run(["item", "get", "--account", account] + mail).output
    }

    @Test("token signin --count beyond what a prefill can hold is errSecParam, not a crash, and signs nobody in")
    func hugeSignInCount() throws {
        defer { cli.tearDown() }
        let client = ["--client-id", "10ad7e57-0000-4000-8000-00000000a001"]
        let huge = try cli.run(["token", "signin", "--user", "x{n}@contoso.com", "--count", "99999999999"] + client + mail)
        #expect(huge.status == 10, "\(huge.standardError)")
        #expect(huge.standardError.contains("--count"))
        #expect(try cli.run(["token", "accounts", "--json"] + client + mail).output.contains("x0@contoso.com") == false)
    }

    // MARK: Data sources

    @Test("item update without a data source changes nothing and is errSecParam")
    func updateWithoutDataSource() throws {
        defer { cli.tearDown() }
        try add("alice", data: "secret-1")
        let update = try cli.run(["item", "update", "--account", "alice"] + mail, input: Data())
        #expect(update.status == 10, "\(update.standardError)")
        #expect(update.standardError.contains("--data"))
        #expect(try data(of: "alice") == "secret-1")
    }

    @Test("item update --stdin with empty input changes nothing")
    func updateWithEmptyStandardInput() throws {
        defer { cli.tearDown() }
        try add("alice", data: "secret-1")
        let update = try cli.run(["item", "update", "--account", "alice", "--stdin"] + mail, input: Data())
        #expect(update.status == 10, "\(update.standardError)")
        #expect(try data(of: "alice") == "secret-1")
        let piped = try cli.run(["item", "update", "--account", "alice", "--stdin"] + mail, input: Data("secret-2".utf8))
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(try data(of: "alice") == "secret-2")
    }

    @Test("item add and cache import never read standard input unless told to")
    func noImplicitStandardInput() throws {
        defer { cli.tearDown() }
        let add = try cli.run(["item", "add", "--account", "bob", "--service", "s"] + mail, input: Data("from-a-pipe".utf8))
        #expect(add.status == 10, "\(add.standardError)")
        let list = try cli.run(["item", "list", "--json"] + mail)
        #expect(try (list.json() as? [Any])?.isEmpty == true, "\(list.output)")
        let importing = try cli.run(["cache", "import", "--client-id", "c"] + mail, input: Data("{}".utf8))
        #expect(importing.status != 0)
    }

    // MARK: UTF-8

    /// Runs the binary through sh, so arguments can carry bytes a Swift String cannot.
    func runRaw(_ shellArguments: String) throws -> (status: Int32, output: String) {
        let command = "exec \"$0\" \(shellArguments) --state-dir '\(cli.stateDirectory.path)' 2>&1"
        return try runTool("/bin/sh", ["-c", command, CLI.executable.path])
    }

    @Test("an account that is not valid UTF-8 is refused, naming the option, and nothing is added")
    func invalidUTF8Argument() throws {
        defer { cli.tearDown() }
        let quoted = mail.map { "'\($0)'" }.joined(separator: " ")
        let result = try runRaw("item add --account \"$(printf 'al\\377ice')\" --service s --data x \(quoted)")
        #expect(result.status == 10, "\(result.output)")
        #expect(result.output.contains("--account"), "\(result.output)")
        #expect(result.output.contains("UTF-8"))
        let list = try cli.run(["item", "list", "--json"] + mail)
        #expect(try (list.json() as? [Any])?.isEmpty == true, "\(list.output)")
    }

    // MARK: Versions

    @Test("items carry a version; --if-version is a compare-and-swap with its own status")
    func conditionalUpdate() throws {
        defer { cli.tearDown() }
        try add("counter", data: "1")
        let first = try cli.run(["item", "get", "--account", "counter", "--json"] + mail).jsonObject()
        #expect(first["version"] as? Int == 1)
        let swap = try cli.run(["item", "update", "--account", "counter", "--data", "2", "--if-version", "1"] + mail)
        #expect(swap.status == 0, "\(swap.standardError)")
        let stale = try cli.run(["item", "update", "--account", "counter", "--data", "3", "--if-version", "1", "--json"] + mail)
        #expect(stale.status == 18, "\(stale.standardError)")
        #expect(stale.standardError.contains("-99001"))
        #expect(stale.standardError.contains("errSKVersionConflict"))
        #expect(try data(of: "counter") == "2")
        let listed = try #require(try cli.run(["item", "list", "--json"] + mail).json() as? [[String: Any]])
        #expect(listed.first?["version"] as? Int == 2)
    }

    // MARK: Numbers

    /// Each case: an invocation, and the option its error must name.
    static let numericCases: [(arguments: [String], option: String)] = [
        (["item", "list", "--timeout", "1e308"], "--timeout"),
        (["item", "list", "--timeout", "nan"], "--timeout"),
        // Was "Missing value": a negative number looked like an option.
        (["item", "list", "--timeout", "-1"], "--timeout"),
        (["token", "accounts", "--client-id", "c", "--token-lifetime", "-5s"], "--token-lifetime"),
        (["token", "accounts", "--client-id", "c", "--token-lifetime", "nan"], "--token-lifetime"),
        (["token", "accounts", "--client-id", "c", "--token-lifetime", "1e300"], "--token-lifetime"),
        (["token", "accounts", "--client-id", "c", "--now", "1e30"], "--now"),
        (["load", "--threads", "--keyring", "memory", "--items", "99999999999"], "--items"),
        (["load", "--threads", "--keyring", "memory", "--value-size", "99999999999"], "--value-size"),
        (["load", "--threads", "--keyring", "memory", "--apps", "100000"], "--apps"),
        (["load", "--threads", "--keyring", "memory", "--operations", "0"], "--operations"),
        (["load", "--threads", "--keyring", "memory", "--duration", "1e300"], "--duration"),
        (["load", "--threads", "--keyring", "memory", "--items", "100000", "--value-size", "1048576"], "--value-size"),
        (["item", "add", "--account", "a", "--service", "s", "--data", "x", "--type", "99999999999"], "--type"),
        (["item", "add", "--account", "a", "--service", "s", "--data", "x", "--creator", "4294967296"], "--creator"),
        (["item", "list", "--creator", "4294967296"], "--creator"),
        (["item", "update", "--account", "a", "--new-creator", "4294967296"], "--new-creator"),
    ]

    @Test("numeric options out of range are errSecParam naming the option, never a signal", arguments: numericCases.indices)
    func numericOptions(_ index: Int) throws {
        defer { cli.tearDown() }
        let (arguments, option) = Self.numericCases[index]
        let needsApp = arguments.first != "load"
        let result = try cli.run(arguments + (needsApp ? mail : []))
        #expect(result.status == 10, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(option), "\(arguments): \(result.standardError)")
    }

    @Test("a duration in hex or with spaces is refused naming the option, not read as a number", arguments: ["0x10", " 5", "5 ", "1_0"])
    func durationSpellings(_ value: String) throws {
        defer { cli.tearDown() }
        let result = try cli.run(["item", "list", "--timeout", value] + mail)
        #expect(result.status != 0, "--timeout '\(value)' was accepted")
        #expect(result.standardError.contains("--timeout"), "\(result.standardError)")
    }

    // MARK: State directory

    @Test("an empty --state-dir is refused and the current directory keeps its mode")
    func emptyStateDirectory() throws {
        defer { cli.tearDown() }
        let directory = cli.stateDirectory.deletingLastPathComponent().appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let command = "cd '\(directory.path)' && exec \"$0\" item list --app com.contoso.mail --team \(team) --state-dir '' 2>&1"
        let result = try runTool("/bin/sh", ["-c", command, CLI.executable.path])
        #expect(result.status == 10, "\(result.output)")
        #expect(result.output.contains("--state-dir"))
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o755)
    }

    @Test("an existing state directory others can read is refused, its mode untouched")
    func sharedStateDirectory() throws {
        defer { cli.tearDown() }
        try FileManager.default.createDirectory(at: cli.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let result = try cli.run(["item", "list"] + mail)
        #expect(result.status == 10, "\(result.standardError)")
        #expect(result.standardError.contains("chmod 700"))
        let mode = try FileManager.default.attributesOfItem(atPath: cli.stateDirectory.path)[.posixPermissions] as? Int
        #expect(mode == 0o755)
    }

    // MARK: Validation gaps

    @Test("snapshot refuses a malformed group")
    func snapshotMalformedGroup() throws {
        defer { cli.tearDown() }
        let output = cli.fixtures.appendingPathComponent("snap.json").path
        let result = try cli.run(["snapshot", "--group", "not a group", "--output", output, "--admin"])
        #expect(result.status == 10, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("cache import by an app not entitled to the group is errSecMissingEntitlement, even for {}")
    func cacheImportChecksEntitlementFirst() throws {
        defer { cli.tearDown() }
        let input = cli.fixtures.appendingPathComponent("empty.json")
        try Data("{}".utf8).write(to: input)
        let notes = ["--app", "com.contoso.notes", "--team", team]
        let result = try cli.run(["cache", "import", "--client-id", "c", "--input", input.path] + notes)
        #expect(result.status == 13, "\(result.standardError)")
    }

    @Test("an app listing 20,000 groups is refused at once with the limit")
    func tooManyGroups() throws {
        defer { cli.tearDown() }
        let groups = (0..<20_000).map { "$(AppIdentifierPrefix)com.contoso.g\($0)" }
        let path = try cli.entitlements("huge", groups: groups)
        let result = try cli.run(["item", "list", "--app", "com.contoso.huge", "--team", team, "--entitlements", path])
        #expect(result.status == 10, "\(result.standardError)")
        #expect(result.standardError.contains("at most 256"))
    }
}
