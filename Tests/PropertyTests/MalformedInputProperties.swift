import Foundation
import LoadGeneration
import PropertyBased
import SharedKeychain
import SuiteManifest
import Testing
import TokenCache

/// Generated malformed input for every reader: property lists, suite manifests (YAML alias
/// bombs included), MSAL JSON caches and numbers. None may crash or hang the process; each is
/// refused with a typed error, and a refused cache writes nothing.
@Suite("Properties: malformed input never crashes and never writes")
struct MalformedInputProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// A random property-list value, decoded from random numbers (so the tree's shape is random too).
    static func plistValue(_ bits: inout [UInt64], depth: Int = 0) -> Any {
        guard let next = bits.popLast() else { return "x" }
        switch next % (depth > 3 ? 5 : 7) {
        case 0: return "$(AppIdentifierPrefix)com.x.\(next % 97)"
        case 1: return Int(truncatingIfNeeded: next)
        case 2: return next % 2 == 0
        case 3: return Data(repeating: UInt8(truncatingIfNeeded: next), count: Int(next % 5))
        case 4: return String(decoding: (0..<Int(next % 12)).map { UInt8(truncatingIfNeeded: next >> $0) | 0x20 }, as: UTF8.self)
        case 5: return (0..<Int(next % 4)).map { _ in plistValue(&bits, depth: depth + 1) }
        default:
            var dictionary: [String: Any] = [:]
            for index in 0..<Int(next % 4) {
                let key = index == 0 && next % 3 == 0 ? "keychain-access-groups" : "k\(index)"
                dictionary[key] = plistValue(&bits, depth: depth + 1)
            }
            return dictionary
        }
    }

    /// Flips, cuts or inserts bytes, driven by `bits`.
    static func mutate(_ data: Data, _ bits: [UInt64]) -> Data {
        var bytes = [UInt8](data)
        for value in bits.prefix(4) where !bytes.isEmpty {
            let position = Int(value % UInt64(bytes.count))
            switch (value >> 32) % 3 {
            case 0: bytes[position] ^= UInt8(truncatingIfNeeded: value >> 8) | 1
            case 1: bytes.removeSubrange(position...)
            default: bytes.insert(UInt8(truncatingIfNeeded: value >> 16), at: position)
            }
        }
        return Data(bytes)
    }

    static let numbers = Gen.uint64(in: 0...UInt64.max).array(of: 8...40)

    @Test("entitlements property lists: refused with EntitlementsError or read, never a crash")
    func entitlementsPropertyLists() throws {
        let team = try TeamIdentifier("ABCDE12345")
        SeededProperty.check("malformed entitlements plists", count: 400, input: Self.numbers) { bits in
            var source = bits
            let root: Any = bits[0] % 4 == 0 ? Self.plistValue(&source) : ["keychain-access-groups": Self.plistValue(&source)]
            let format: PropertyListSerialization.PropertyListFormat = bits[1] % 2 == 0 ? .xml : .binary
            guard let valid = try? PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0) else { return }
            let data = bits[2] % 3 == 0 ? valid : Self.mutate(valid, Array(bits.suffix(4)))
            do {
                let entitlements = try Entitlements(propertyList: data, source: "generated")
                _ = try? AppIdentity(bundleID: "com.contoso.app", teamID: team, entitlements: entitlements, source: "generated")
            } catch {
                guard !String(describing: error).isEmpty else { throw Violation(description: "an error without a message") }
            }
        }
    }

    /// YAML built from fragments a manifest uses, and the ones that hurt (anchors, aliases,
    /// brackets, tabs, bad bytes).
    static let fragments: [String] = [
        "apps:\n", "- ", "  ", "bundle_id: com.contoso.mail\n", "team_id: ABCDE12345\n", "client_id: c\n", "&a ", "*a", "&b [*a, *a] ",
        "[", "]", "{", "}", ": ", ",", "\n", "\t", "'", "\"", "# c\n", "entitlements: [x]\n", "info_plist: {}\n", "~", "!!str ", "? ",
        "\u{FEFF}", "é", "0o17", "1e999", "<<: *a\n",
    ]

    @Test("suite manifests: refused with SuiteManifestError or loaded, alias bombs refused before they expand")
    func manifests() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-prop-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("suite.yaml")
        SeededProperty.check("malformed manifests", count: 300, input: Self.numbers) { bits in
            try Self.checkManifest(bits, at: file)
        }
    }

    static func checkManifest(_ bits: [UInt64], at file: URL) throws {
        guard bits[0] % 5 == 0 else {
            let text: String = bits.map { Self.fragments[Int($0 % UInt64(Self.fragments.count))] }.joined()
            try Data(text.utf8).write(to: file)
            do { _ = try SuiteManifest.load(from: file) } catch {
                guard !error.description.isEmpty else { throw Violation(description: "an error without a message") }
            }
            return
        }
        // A bomb of random fan-out and depth: it must load only if it stays small.
        let fanOut = 2 + Int(bits[1] % 9)
        let depth = 2 + Int(bits[2] % 12)
        var lines = ["l0: &l0 [x]"]
        for level in 1...depth {
            let aliases = Array(repeating: "*l\(level - 1)", count: fanOut).joined(separator: ", ")
            lines.append("l\(level): &l\(level) [\(aliases)]")
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        var expanded = 0.0
        for level in 0...depth { expanded += pow(Double(fanOut), Double(level)) }
        do {
            _ = try SuiteManifest.load(from: file)
        } catch {
            let refusedForSize = error.description.contains("expands to more than") || error.description.contains("YAML aliases")
            if expanded > 2_000_000, !refusedForSize {
                throw Violation(description: "a bomb expanding to \(expanded) values was not refused for its size: \(error)")
            }
        }
    }

    @Test("MSAL JSON caches: refused with nothing written, or imported in full")
    func jsonCaches() throws {
        let team = try TeamIdentifier("ABCDE12345")
        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: team,
                                  keychainAccessGroups: [AccessGroup(teamID: team, identifier: "com.microsoft.adalcache")])
        let configuration = TokenCacheConfiguration(clientID: "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0", familyID: "1")
        // A real export to mutate: two users signed in.
        let source = try TokenCache(keychain: Keychain(app: app, store: InMemoryStore()), configuration: configuration)
        _ = try source.signIn(username: "alice@contoso.com")
        _ = try source.signIn(username: "bob@contoso.com")
        let export = try source.exportCache()
        SeededProperty.check("malformed MSAL caches", count: 300, input: Self.numbers) { bits in
            let input: Data
            if bits[0] % 4 == 0 {
                var values = bits
                input = (try? JSONSerialization.data(withJSONObject: ["AccessToken": Self.plistValue(&values)].mapValues { value -> Any in
                    value is Data || value is Date ? "x" : value
                })) ?? Data("{".utf8)
            } else {
                input = Self.mutate(export, Array(bits.suffix(4)))
            }
            let store = InMemoryStore()
            let target = try TokenCache(keychain: Keychain(app: app, store: store), configuration: configuration)
            let everything = ItemQuery(groups: app.accessGroups.map(\.rawValue))
            // The cache's items, without MSAL's team-ID probe, which making the cache added.
            let cacheItems = { try store.items(matching: everything, limit: nil).filter { !TokenCache.isTeamIDProbe($0) }.count }
            do {
                let written = try target.importCache(input)
                let items = try cacheItems()
                guard items == written else { throw Violation(description: "reported \(written) items, wrote \(items)") }
            } catch let error as TokenCacheError {
                let items = try cacheItems()
                guard items == 0 else { throw Violation(description: "refused (\(error)) but wrote \(items) items") }
                guard error.status == .param else { throw Violation(description: "refused with \(error.status), not errSecParam") }
            }
        }
    }

    static let numberTexts = ["nan", "-nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-0", "1", "-1", "5", "3600", "86400",
                              "9223372036854775807", "99999999999", "4294967296", "18446744073709551616", "0x10", "1_000", " 5", "", "1e30", "2.5", "0.0001"]

    @Test("numbers: every option range-checks finite values and names itself, never traps")
    func numbers() throws {
        let generator = Gen.uint64(in: 0...UInt64.max).array(of: 4)
        SeededProperty.check("numeric options", count: 500, input: generator) { bits in
            let text = bits[0] % 3 == 0
                ? "\(Double(bitPattern: bits[1]))"
                : Self.numberTexts[Int(bits[1] % UInt64(Self.numberTexts.count))]
            let value = Double(text)
            let checks: [(String, ClosedRange<Double>)] = [
                ("--timeout", 0.001...3600), ("--token-lifetime", 1...315_360_000), ("--now", 0...253_402_300_799),
            ]
            for (option, range) in checks {
                guard let value else { continue }
                do {
                    let accepted = try InputValidation.check(value, option, in: range)
                    guard accepted.isFinite, range.contains(accepted) else { throw Violation(description: "\(option) accepted \(text)") }
                } catch let error as KeychainError {
                    guard error.status == .param, error.message.contains(option) else {
                        throw Violation(description: "\(option) \(text): \(error)")
                    }
                }
            }
            // Load settings from the same numbers, as whole numbers where the option takes them.
            let whole = Int(exactly: (value ?? 0).rounded(.towardZero)) ?? Int(truncatingIfNeeded: bits[2])
            let configuration = LoadConfiguration(
                apps: bits[3] % 2 == 0 ? whole : 2, mix: try OperationMix(parsing: "read=100"),
                itemsPerApp: bits[3] % 3 == 0 ? whole : 10, valueSize: bits[3] % 5 == 0 ? whole : 64,
                duration: bits[3] % 7 == 0 ? (value ?? 1) : 1, operations: bits[3] % 11 == 0 ? whole : nil,
                warmup: bits[3] % 13 == 0 ? (value ?? 0) : 0)
            do {
                try configuration.validate()
                let total = configuration.apps * configuration.itemsPerApp * configuration.valueSize
                guard total <= LoadConfiguration.Limits.totalBytes, configuration.duration.isFinite else {
                    throw Violation(description: "accepted \(configuration)")
                }
            } catch let error as LoadError {
                guard error.status == .param else { throw Violation(description: "\(error)") }
            }
        }
    }
}

/// The same numbers through the real binary: whatever the value, the process exits with a
/// status of its own (0, 10 for a value out of range, 64 for one that does not parse), never a
/// signal.
@Suite("Properties: numeric options through the CLI")
struct NumericOptionProcessProperties {
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shared-keychain")
    }

    static let commands: [(arguments: [String], option: String)] = [
        (["item", "list", "--app", "com.contoso.mail", "--team", "ABCDE12345", "--keyring", "memory"], "--timeout"),
        (["token", "accounts", "--app", "com.contoso.mail", "--team", "ABCDE12345", "--keyring", "memory", "--client-id", "c",
          "--sharing-group", "com.contoso.mail"], "--token-lifetime"),
        (["token", "accounts", "--app", "com.contoso.mail", "--team", "ABCDE12345", "--keyring", "memory", "--client-id", "c",
          "--sharing-group", "com.contoso.mail"], "--now"),
        (["item", "add", "--app", "com.contoso.mail", "--team", "ABCDE12345", "--keyring", "memory", "--account", "a",
          "--service", "s", "--data", "x"], "--type"),
        (["load", "--keyring", "memory", "--threads", "--apps", "1", "--duration", "0.2", "--warmup", "0"], "--items"),
        (["load", "--keyring", "memory", "--threads", "--apps", "1", "--duration", "0.2", "--warmup", "0"], "--value-size"),
    ]

    @Test("random numbers for numeric options: an exit status, never a signal")
    func numericOptionsNeverKillTheProcess() throws {
        let generator = Gen.uint64(in: 0...UInt64.max).array(of: 3)
        SeededProperty.check("numeric options through the CLI", count: 80, input: generator) { bits in
            let (arguments, option) = Self.commands[Int(bits[0] % UInt64(Self.commands.count))]
            let texts = MalformedInputProperties.numberTexts
            let value = bits[1] % 3 == 0 ? "\(Double(bitPattern: bits[2]))" : texts[Int(bits[2] % UInt64(texts.count))]
            let process = Process()
            process.executableURL = Self.executable
            process.arguments = arguments + [option, value]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationReason == .exit, [0, 10, 64].contains(process.terminationStatus) else {
                throw MalformedInputProperties.Violation(
                    description: "\(option) \(value): \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
            }
        }
    }
}
