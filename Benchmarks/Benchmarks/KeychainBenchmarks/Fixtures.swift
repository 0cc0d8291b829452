import Foundation
import KeychainStorage
import SecretServiceStorage
import SharedKeychain
import Synchronization

// package-benchmark runs every benchmark in a process of its own, so each benchmark that needs
// the Secret Service gets a fresh private gnome-keyring: started (lazily, once per process) by
// its setup, stopped by its teardown. One process talks to one bus, so the keyring is a global.

/// The private keyring of this benchmark process.
enum BenchKeyring {
    private static let current = Mutex<PrivateKeyring?>(nil)

    /// The files that hold a keyring's items: the password, the daemon's keyring
    /// files and the stores' lock directory (group indexes and census stamps).
    static let itemFiles = ["password", "data", "locks"]

    /// Starts the process's keyring in a fresh temporary state directory, once; with
    /// `template` (a copy of ``itemFiles`` made by ``saveItems(to:)``), on a copy of its items.
    static func shared(copying template: URL? = nil) throws -> PrivateKeyring {
        try current.withLock { (current) throws -> PrivateKeyring in
            if let current { return current }
            let directory = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("skbench-\(UUID().uuidString.prefix(8))")
            if let template {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try copyFiles(itemFiles, from: template, to: directory)
            }
            let keyring = PrivateKeyring(stateDirectory: directory)
            try keyring.start()
            current = keyring
            return keyring
        }
    }

    /// Copies the running keyring's ``itemFiles`` to `template` (whole or not at all). It keeps
    /// running: GLib cannot reconnect a process to a bus that stopped. Between calls its files
    /// are whole (gnome-keyring rewrites a collection's file before it answers a change).
    static func saveItems(to template: URL) throws {
        try current.withLock { current in
            guard let keyring = current else { throw BenchError("no keyring to save") }
            let partial = template.appendingPathExtension("partial")
            try? FileManager.default.removeItem(at: partial)
            try FileManager.default.createDirectory(
                at: partial, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try copyFiles(itemFiles, from: keyring.stateDirectory, to: partial)
            try FileManager.default.moveItem(at: partial, to: template)
        }
    }

    /// `cp -a`: modes (the 0600 password, 0700 directories) and times as they were.
    private static func copyFiles(_ names: [String], from source: URL, to destination: URL) throws {
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = ["-a"] + names.map { source.appendingPathComponent($0).path } + [destination.path]
        try copy.run()
        copy.waitUntilExit()
        guard copy.terminationStatus == 0 else {
            throw BenchError("cp -a of \(names) from \(source.path) to \(destination.path) failed (exit \(copy.terminationStatus))")
        }
    }

    /// Stops the keyring, if one was started, and removes its state directory.
    static func stop() {
        current.withLock { current in
            guard let keyring = current else { return }
            _ = try? keyring.stop()
            try? FileManager.default.removeItem(at: keyring.stateDirectory)
            current = nil
        }
    }
}

/// Every fixture uses one team, one app and these groups.
enum Names {
    static let team = "BENCH12345"
    static let group = "BENCH12345.bench.main"
    static let service = "bench"
    /// Bytes of secret per item, for the emulator and raw libsecret alike.
    static let valueSize = 256
    static let value = Data(repeating: 0x61, count: valueSize)
    static let otherValue = Data(repeating: 0x62, count: valueSize)

    static func account(_ index: Int) -> String { "account-\(index)" }

    static func otherGroup(_ index: Int) -> String { "BENCH12345.bench.other\(index)" }

    /// An app entitled to the main group.
    static func app() throws -> AppIdentity {
        let team = try TeamIdentifier(team)
        return try AppIdentity(
            bundleID: "com.bench.app", teamID: team,
            keychainAccessGroups: [AccessGroup(teamID: team, identifier: "bench.main")])
    }
}

/// The storage behind a benchmark.
enum Backend: String, CaseIterable {
    /// ``InMemoryStore``: the emulator's own overhead.
    case memory
    /// ``SecretServiceStore`` with every item in gnome-keyring's in-memory `session` collection.
    case session
    /// ``SecretServiceStore`` with one persistent collection per group (the CLI's layout).
    case persistent
    /// The same without looking for other clients' items in the `default` collection: what
    /// adopting them costs, side by side with `persistent`.
    case persistentOwn = "persistent-own"
    /// ``SecretServiceStore`` with every item in the `login` collection: the same collection
    /// raw libsecret writes to.
    case `default`
    /// ``RawLibsecret``: the floor, in the `login` collection.
    case raw

    static let timeout = 60.0

    func store() throws -> any ItemStore {
        let layout: SecretServiceStore.Layout
        switch self {
        case .memory: return InMemoryStore()
        case .raw: preconditionFailure("raw libsecret is no ItemStore")
        case .session: layout = .sessionCollection
        case .default: layout = .defaultCollection
        case .persistent, .persistentOwn: layout = .collectionPerGroup(masterPassword: try BenchKeyring.shared().masterPassword())
        }
        let keyring = try BenchKeyring.shared()
        var configuration = SecretServiceStore.Configuration(
            busAddress: keyring.busAddress, layout: layout, lockDirectory: keyring.lockDirectory,
            timeout: Self.timeout, lockTimeout: Self.timeout)
        configuration.adoptsForeignItems = self != .persistentOwn
        configuration.keyringFiles = keyring.keyringFiles
        return try SecretServiceStore(configuration: configuration)
    }

    /// The operations the benchmarks time, on this backend.
    func target() throws -> any Target {
        switch self {
        case .raw:
            return RawTarget(raw: try RawLibsecret(busAddress: try BenchKeyring.shared().busAddress, timeout: Self.timeout))
        default:
            return try EmulatorTarget(store: store())
        }
    }
}

/// The single-item and bulk operations, by primary key in ``Names/group``.
protocol Target: Sendable {
    var store: (any ItemStore)? { get }
    func add(_ index: Int, group: String) throws
    func read(_ index: Int) throws
    func update(_ index: Int, data: Data) throws
    func delete(_ index: Int) throws
    /// Every item of the group, secrets included; returns how many.
    func list() throws -> Int
    /// Removes every item of the group (`count` of them).
    func wipe(count: Int) throws
}

extension Target {
    /// Adds items `range` to `group`.
    func fill(_ range: Range<Int>, group: String = Names.group) throws {
        for index in range { try add(index, group: group) }
    }
}

struct EmulatorTarget: Target {
    let keychain: Keychain

    init(store: any ItemStore) throws {
        keychain = Keychain(app: try Names.app(), store: store)
    }

    var store: (any ItemStore)? { keychain.store }

    private func key(_ index: Int) -> KeychainQuery {
        KeychainQuery(group: Names.group, account: Names.account(index), service: Names.service)
    }

    func add(_ index: Int, group: String) throws {
        if group == Names.group {
            try keychain.add(NewItem(account: Names.account(index), service: Names.service, group: group, data: Names.value))
        } else {
            // Groups the app is not entitled to: straight into the store.
            let date = Date()
            try keychain.store.add(
                StoredItem(
                    group: group, account: Names.account(index), service: Names.service,
                    creationDate: date, modificationDate: date, data: Names.otherValue))
        }
    }

    func read(_ index: Int) throws {
        let item = try keychain.first(key(index))
        guard item.data.count == Names.valueSize else { throw BenchError("read \(item.data.count) bytes") }
    }

    func update(_ index: Int, data: Data) throws {
        try keychain.update(key(index), with: ItemChange(data: data))
    }

    func delete(_ index: Int) throws {
        try keychain.delete(key(index))
    }

    func list() throws -> Int {
        let items = try keychain.copyAll(.all(in: Names.group), returningData: true)
        guard items.allSatisfy({ $0.data.count == Names.valueSize }) else { throw BenchError("listed an item without its data") }
        return items.count
    }

    func wipe(count: Int) throws {
        let deleted = try keychain.delete(.all(in: Names.group))
        guard deleted == count else { throw BenchError("wiped \(deleted) items, expected \(count)") }
    }
}

struct RawTarget: Target {
    let raw: RawLibsecret

    var store: (any ItemStore)? { nil }

    func add(_ index: Int, group: String) throws {
        try raw.store(group: group, account: Names.account(index), service: Names.service, data: Names.value)
    }

    func read(_ index: Int) throws {
        guard let data = try raw.lookup(group: Names.group, account: Names.account(index), service: Names.service),
            data.count == Names.valueSize
        else { throw BenchError("raw lookup of \(index) found nothing") }
    }

    /// `secret_password_store` is an upsert: the raw way to change an item's data.
    func update(_ index: Int, data: Data) throws {
        try raw.store(group: Names.group, account: Names.account(index), service: Names.service, data: data)
    }

    func delete(_ index: Int) throws {
        guard try raw.clear(group: Names.group, account: Names.account(index), service: Names.service) else {
            throw BenchError("raw clear of \(index) deleted nothing")
        }
    }

    func list() throws -> Int {
        try raw.search(group: Names.group).count
    }

    /// One `secret_password_clearv_sync` per item, as a client without a bulk call does it.
    func wipe(count: Int) throws {
        for index in 0..<count { try delete(index) }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Fills other groups (100 items each) with up to `count` items, stopping after `seconds`;
/// returns how many went in.
func fillOtherGroups(_ target: any Target, count: Int, seconds: Double) throws -> Int {
    let deadline = Date().addingTimeInterval(seconds)
    var filled = 0
    while filled < count, Date() < deadline {
        try target.add(filled % 100, group: Names.otherGroup(filled / 100))
        filled += 1
    }
    return filled
}

/// An integer from the environment (the plugin passes its environment to each benchmark process).
func environment(_ name: String, default value: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? value
}
