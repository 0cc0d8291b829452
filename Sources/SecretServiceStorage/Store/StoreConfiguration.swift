import Foundation
import KeychainStorage
import Logging

extension SecretServiceStore {
    /// How a ``SecretServiceStore`` reaches its Secret Service.
    public struct Configuration: Sendable {
        /// The D-Bus address of the session bus to use, or nil for the process's
        /// `DBUS_SESSION_BUS_ADDRESS`. A process talks to ONE bus (libsecret uses GLib's shared
        /// session connection): an address given here is set before the process's first
        /// connection, and a store for another bus cannot be made afterwards.
        public var busAddress: String?
        /// Where items live; see ``Layout``.
        public var layout: Layout
        /// Where the per-group lock files live; every process sharing the keyring must use the
        /// same directory. For a private keyring: its state directory (``PrivateKeyring``).
        public var lockDirectory: URL
        /// The limit for each call to the Secret Service, in seconds (GDBus would wait 25 s).
        public var timeout: Double
        /// The limit for waiting on another holder of a group lock, in seconds.
        public var lockTimeout: Double
        /// The most items a shard (collection) of a group takes in the per-group layout before
        /// new items go to a new shard: each write rewrites its whole collection file, so this
        /// bounds a write's cost whatever the size of the group.
        public var shardCapacity: Int = Configuration.defaultShardCapacity
        /// The most secrets one `GetSecrets` call reads; a bigger read takes several (tests make
        /// it small to see the batches without thousands of items).
        var secretsBatch = SecretServiceClient.defaultSecretsBatch
        /// The device whose lock protects items by their accessibility class (per-group layout):
        /// its protected classes' shards stay locked in gnome-keyring, and operations that
        /// would use their items are ``StorageError/locked(collection:)``. Nil: no device; a
        /// collection is unlocked with the master password when first met.
        public var deviceLock: DeviceLockProvider?
        /// What the device answers when an item's access control asks the user
        /// (`ItemStore.userAuthentication`); nil: no device, which always allows.
        public var userAuthentication: AuthenticationProvider?
        /// Per-group layout: whether operations also find the items other Secret Service clients
        /// wrote with this store's attributes in the `default` collection, where `secret-tool
        /// store` puts them (one more search of that collection per operation; see the storage
        /// contract). False: only the group's shards are searched, and such items stay unseen.
        /// The other layouts search the whole service and always find them.
        public var adoptsForeignItems = true
        /// How long, in seconds, the store trusts its last look at the `default` collection when
        /// that look found no item of this store's schema there (the usual case): within it,
        /// operations make no extra search. An item another client writes is seen by a store at
        /// most this long after it was written; a new store (every CLI command) sees it at once.
        /// It is also the longest the store serves an item it read or wrote itself while no
        /// SharedKeychain process changed the group (a change by another client is seen within
        /// it). 0: look on every operation, and keep nothing.
        public var foreignItemsRecheckInterval: Double = 1
        /// The directory holding the daemon's keyring files (gnome-keyring's `keyrings`), when
        /// known: a census of a group's shard index is then kept beside the index with the state
        /// of the group's files, and the next process trusts it while those files and the index
        /// are unchanged (``PrivateKeyring`` sets it). Nil: each new store counts every shard of
        /// a group against its index before using it.
        public var keyringFiles: URL?
        /// Receives debug messages (reconnects, unlocks, collections made); never secrets.
        public var logger: Logger
        /// Called when the Secret Service has gone from the bus (its daemon was killed), before
        /// the store reconnects and retries: the private keyring starts its daemon again here.
        /// Nil: a vanished service is ``StorageError/unavailable(_:)``.
        public var restartService: (@Sendable () throws -> Void)?

        /// A configuration; the defaults suit the user's own keyring on the session bus.
        public init(
            busAddress: String? = nil,
            layout: Layout = .defaultCollection,
            lockDirectory: URL = Configuration.defaultLockDirectory,
            timeout: Double = 5,
            lockTimeout: Double = 30,
            logger: Logger = Logger(label: "shared-keychain.secret-service")
        ) {
            self.busAddress = busAddress
            self.layout = layout
            self.lockDirectory = lockDirectory
            self.timeout = timeout
            self.lockTimeout = lockTimeout
            self.logger = logger
        }

        /// 32, or `SHARED_KEYCHAIN_SHARD_CAPACITY` (1-4096) for experiments: it only decides where
        /// new items go, so processes with different values share a keyring safely.
        public static var defaultShardCapacity: Int {
            guard let text = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_SHARD_CAPACITY"],
                let value = Int(text), (1...4096).contains(value)
            else { return 32 }
            return value
        }

        /// For the user's own keyring: `$XDG_RUNTIME_DIR/shared-keychain-locks`, or a per-user
        /// directory in the temporary directory when there is no runtime directory.
        public static var defaultLockDirectory: URL {
            if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
                return URL(fileURLWithPath: runtime).appendingPathComponent("shared-keychain-locks")
            }
            return FileManager.default.temporaryDirectory.appendingPathComponent("shared-keychain-locks-\(getuid())")
        }
    }
}
