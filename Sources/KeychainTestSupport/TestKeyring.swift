import Foundation
import KeychainStorage
import SecretServiceStorage
import Synchronization

/// One private keyring for the whole test process: started on first use in a fresh temporary
/// state directory, stopped (and its directory removed) when the process exits. Never the
/// user's keyring: the process's session bus is pointed at the private bus before anything
/// connects.
///
/// Tests share the daemon and keep apart by using unique access groups (``uniqueGroup(_:)``).
/// A test that stops, kills or freezes the daemon does so inside ``withExclusiveAccess(_:)``;
/// stores from ``store(_:timeout:)`` wait while it runs, so other tests never see the gap.
public enum TestKeyring {
    /// Which store layout a test wants.
    public enum Layout: Sendable, CaseIterable, CustomStringConvertible {
        case defaultCollection
        case collectionPerGroup
        /// Per group, with shards of 2 items: every group of a test spreads over many shards.
        case smallShards

        /// The case name, for test arguments.
        public var description: String {
            switch self {
            case .defaultCollection: "defaultCollection"
            case .collectionPerGroup: "collectionPerGroup"
            case .smallShards: "smallShards"
            }
        }
    }

    private static let shared = Mutex<PrivateKeyring?>(nil)

    /// Whether the running test holds shared or exclusive access: only then may it open an
    /// unguarded store, which another test's daemon restart would otherwise hit mid-operation.
    @TaskLocal private static var holdsAccess = false

    /// Opening an unguarded store, or reaching the daemon by its bus address, outside
    /// ``withSharedAccess(_:)`` or ``withExclusiveAccess(_:)``.
    public enum MisuseError: Error, CustomStringConvertible {
        case unguardedOutsideAccess

        public var description: String {
            "the shared keyring unguarded, outside TestKeyring.withSharedAccess or withExclusiveAccess: another "
                + "test's daemon restart would hit its calls; use TestKeyring.store, or take access first"
        }
    }

    /// The shared keyring's bus address, for clients of its own (`secret-tool`, libsecret):
    /// only inside ``withSharedAccess(_:)`` or ``withExclusiveAccess(_:)``, since other tests
    /// restart its daemon.
    public static func busAddress() throws -> String {
        guard holdsAccess else { throw MisuseError.unguardedOutsideAccess }
        return try keyring().busAddress
    }

    /// The shared keyring, started on first use (thread-safe). Not public: a store made from it
    /// directly would not wait for tests that restart the daemon.
    static func keyring() throws -> PrivateKeyring {
        try shared.withLock { (shared) throws -> PrivateKeyring in
            if let keyring = shared { return keyring }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("sk-test-\(getpid())-\(UUID().uuidString.prefix(8))")
            let keyring = PrivateKeyring(stateDirectory: directory)
            try keyring.start()
            // Point this process's session bus at the private one before anything connects.
            _ = try SecretServiceStore(configuration: keyring.storeConfiguration(collectionPerGroup: false))
            shared = keyring
            atexit { TestKeyring.stopAtExit() }
            return keyring
        }
    }

    /// A store on the shared keyring whose operations wait while a test holds exclusive access.
    /// `adjust` may change the configuration first.
    public static func store(
        _ layout: Layout = .collectionPerGroup, timeout: Double = 5,
        adjust: (inout SecretServiceStore.Configuration) -> Void = { _ in }
    ) throws -> GuardedStore {
        GuardedStore(base: try openStore(layout, timeout: timeout, adjust: adjust))
    }

    /// A store on the shared keyring that ignores exclusive access: for use INSIDE
    /// ``withExclusiveAccess(_:)`` (a guarded store would wait for the test itself) or
    /// ``withSharedAccess(_:)`` (to test the store's internals). Anywhere else it throws
    /// ``MisuseError/unguardedOutsideAccess``.
    public static func unguardedStore(
        _ layout: Layout = .collectionPerGroup, timeout: Double = 5,
        adjust: (inout SecretServiceStore.Configuration) -> Void = { _ in }
    ) throws -> SecretServiceStore {
        guard holdsAccess else { throw MisuseError.unguardedOutsideAccess }
        return try openStore(layout, timeout: timeout, adjust: adjust)
    }

    private static func openStore(
        _ layout: Layout, timeout: Double, adjust: (inout SecretServiceStore.Configuration) -> Void
    ) throws -> SecretServiceStore {
        var configuration = try keyring().storeConfiguration(
            collectionPerGroup: layout != .defaultCollection, timeout: timeout)
        if layout == .smallShards { configuration.shardCapacity = 2 }
        adjust(&configuration)
        return try SecretServiceStore(configuration: configuration)
    }

    /// A fresh access group, `SKTEST1234.<label>.<random>`.
    public static func uniqueGroup(_ label: String = "test") -> String {
        let safe = String(label.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "-"
        })
        return "SKTEST1234.\(safe).\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Runs `body` while no test holds exclusive access (stops, kills or restarts the daemon):
    /// for tests that use unguarded stores or talk to the daemon themselves (`secret-tool`).
    /// Use only unguarded stores inside: a guarded one would take the shared lock again, which
    /// deadlocks once a test is waiting for exclusive access.
    public static func withSharedAccess<T>(_ body: () throws -> T) throws -> T {
        try AccessLock.shared.shared { () throws -> T in try $holdsAccess.withValue(true) { try body() } }
    }

    /// Runs `body` while no guarded store operation runs anywhere in the process: for tests
    /// that stop, kill or freeze the shared daemon. `body` must leave the keyring running.
    public static func withExclusiveAccess<T>(_ body: (PrivateKeyring) throws -> T) throws -> T {
        let keyring = try keyring()
        return try AccessLock.shared.exclusive { try $holdsAccess.withValue(true) { try body(keyring) } }
    }

    private static func stopAtExit() {
        guard let keyring = shared.withLock({ $0 }) else { return }
        _ = try? keyring.stop()
        try? FileManager.default.removeItem(at: keyring.stateDirectory)
    }
}
