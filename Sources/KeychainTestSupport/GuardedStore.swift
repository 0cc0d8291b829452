import Foundation
import KeychainStorage
import SecretServiceStorage

/// A ``SecretServiceStore`` on the shared test keyring whose every operation waits while a test
/// holds ``TestKeyring/withExclusiveAccess(_:)``.
public final class GuardedStore: ItemStore {
    /// The store itself. Not public: every call must wait for exclusive access.
    let base: SecretServiceStore

    /// The base store's name.
    public var name: String { base.name }

    /// ``SecretServiceStore``'s device answer.
    public var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(base: SecretServiceStore) { self.base = base }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func add(_ item: StoredItem) throws(StorageError) {
        try AccessLock.shared.shared { () throws(StorageError) in try base.add(item) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try AccessLock.shared.shared { () throws(StorageError) in try base.items(matching: query, limit: limit) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try AccessLock.shared.shared { () throws(StorageError) in try base.update(matching: query, with: change, at: date) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try AccessLock.shared.shared { () throws(StorageError) in try base.delete(matching: query) }
    }
}

extension GuardedStore {
    /// ``SecretServiceStore/collectionPath(forGroup:)``, once no test holds exclusive access.
    public func collectionPath(forGroup group: String) throws(StorageError) -> String? {
        try AccessLock.shared.shared { () throws(StorageError) in try base.collectionPath(forGroup: group) }
    }

    /// ``SecretServiceStore/lockShards(of:groups:)``, once no test holds exclusive access.
    @discardableResult
    public func lockShards(of classes: Set<ProtectionClass>, groups: [String]? = nil) throws(StorageError) -> Int {
        try AccessLock.shared.shared { () throws(StorageError) in try base.lockShards(of: classes, groups: groups) }
    }
}

extension GuardedStore: ItemWatching {
    /// ``SecretServiceStore``'s watch, started once no test holds exclusive access. The watch
    /// itself is not guarded: it only listens.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        try AccessLock.shared.shared { () throws(StorageError) in try base.watch(groups: groups) }
    }
}

/// A process-wide readers-writer lock: guarded store operations read, disruptive tests write.
/// Writers are preferred, so a stream of operations cannot starve a waiting test.
///
/// `@unchecked Sendable`: the pthread lock is allocated once, never moved, and built for
/// concurrent use.
final class AccessLock: @unchecked Sendable {
    static let shared = AccessLock()

    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    private init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    func shared<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        // EDEADLK: this thread holds the write lock already, which covers reading.
        let locked = pthread_rwlock_rdlock(lock) == 0
        defer { if locked { pthread_rwlock_unlock(lock) } }
        return try body()
    }

    func exclusive<T>(_ body: () throws -> T) throws -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
