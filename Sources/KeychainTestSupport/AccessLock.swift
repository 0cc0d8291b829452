import Foundation

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
