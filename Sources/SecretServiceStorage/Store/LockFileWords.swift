import CFutex
import Foundation
import Synchronization

/// The first 16 bytes of each lock file, shared by every process of the group: `releases` (at
/// 0, the futex word waiters sleep on, counting releases that had waiters), `waiters` (at 4),
/// and the group's `version` (at 8). The lock itself is the `flock`, never these. Lock files of
/// earlier versions are empty: they grow to 16 bytes on first use.
///
/// Any app of the group can cut the file short while a store has it mapped, and a process that
/// then touched the mapping would die of SIGBUS. So this process never touches it: the words
/// are read with `pread` and changed by the kernel (futex calls, ``sk_futex_add_shared``), and
/// a futex call on a page that is gone fails with EFAULT instead. A holder of the lock gives
/// the file back its size (``restoreSize(_:)``), and the same mapping works again.
final class LockFileWords: Sendable {
    static let size = 16
    /// Files mapped at most; past it, a group works unmapped (polling waits, nothing kept).
    static let limit = 256

    /// One mapped lock file: where the words are mapped, and a descriptor to read them.
    struct Words: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let descriptor: Int32

        private var releasesWord: UnsafeMutablePointer<UInt32> { base.assumingMemoryBound(to: UInt32.self) }
        private var waitersWord: UnsafeMutablePointer<UInt32> { (base + 4).assumingMemoryBound(to: UInt32.self) }
        private var versionWord: UnsafeMutablePointer<UInt32> { (base + 8).assumingMemoryBound(to: UInt32.self) }

        /// The release count, nil when the file is cut short. A torn read only makes the next
        /// wait return at once.
        var releases: UInt32? { Self.read(descriptor, at: 0) }

        /// The group's version, nil when it cannot be read (the file cut short, or changing
        /// under every try): read, then confirmed equal by the kernel, so never a torn value.
        var version: UInt32? {
            for _ in 0..<4 {
                guard let value = Self.read(descriptor, at: 8) else { return nil }
                switch sk_futex_equals_shared(versionWord, value) {
                case 1: return value
                case 0: continue
                default: return nil
                }
            }
            return nil
        }

        func addWaiter(_ delta: Int32) { _ = sk_futex_add_shared(waitersWord, delta, 0) }

        /// Sleeps until a release changes the count from `seen`, or `milliseconds` pass. When the
        /// word cannot be waited on (the file was cut short), sleeps for the time instead.
        func wait(whileReleasesAre seen: UInt32, milliseconds: Int32) {
            if sk_futex_wait_shared(releasesWord, seen, milliseconds) != 0, errno == EFAULT {
                usleep(UInt32(max(milliseconds, 0)) * 1000)
            }
        }

        /// Wakes one waiter: only one can take the lock, and waking them all (eight apps signing
        /// in at once) woke seven each time to find it taken again, on two cores the holder needs.
        /// One that fails goes back to sleep; the next release wakes the next.
        func wakeOne() {
            _ = sk_futex_add_shared(releasesWord, 1, 1)
        }

        /// Makes the version odd (from an even one; an odd one, a holder that died mid-change,
        /// moves on by two); returns what it was, or nil when it cannot be kept.
        func beginChange() -> UInt32? {
            guard let before = version, sk_futex_add_shared(versionWord, before % 2 == 0 ? 1 : 2, 0) >= 0 else { return nil }
            return before
        }

        /// Makes the version even again; returns it, or nil.
        func endChange() -> UInt32? {
            guard let before = version, sk_futex_add_shared(versionWord, before % 2 == 0 ? 2 : 1, 0) >= 0 else { return nil }
            return version
        }

        /// Whether anyone waits on the lock file of `descriptor`, read without mapping it: a hint
        /// (a waiter counts itself before it tries the lock, so one that failed is seen here).
        static func hasWaiters(_ descriptor: Int32) -> Bool {
            (read(descriptor, at: 4) ?? 0) != 0
        }

        private static func read(_ descriptor: Int32, at offset: off_t) -> UInt32? {
            var value: UInt32 = 0
            return pread(descriptor, &value, 4, offset) == 4 ? value : nil
        }
    }

    /// Gives a lock file cut short its size back, so the words work again; the caller holds its
    /// lock. The version the cut erased starts again at a random even number, not at 0, where
    /// it would soon come round to a version some store keeps items at.
    static func restoreSize(_ descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size < size, ftruncate(descriptor, off_t(size)) == 0 else { return }
        var version = UInt32.random(in: 0...UInt32.max) & ~1
        _ = pwrite(descriptor, &version, 4, 8)
    }

    /// Mapped files by group.
    private let mappings = Mutex<[String: Words]>([:])
    /// Lock files by group: each name takes a SHA-256 of the group, and every operation asks.
    private let files = Mutex<[String: URL]>([:])

    /// The lock file of `group`, named by `name` the first time.
    func lockFile(of group: String, named name: () -> URL) -> URL {
        if let known = files.withLock({ $0[group] }) { return known }
        let file = name()
        files.withLock { files in
            if files.count >= 4 * Self.limit { files.removeAll() }
            files[group] = file
        }
        return file
    }

    deinit {
        for words in mappings.withLock({ Array($0.values) }) {
            munmap(words.base, Self.size)
            close(words.descriptor)
        }
    }

    /// The words of `group`'s lock file if they are mapped already.
    func mapped(group: String) -> Words? {
        mappings.withLock { $0[group] }
    }

    /// The words of `group`'s lock file at `path`, mapped on first use (through a copy of
    /// `descriptor` when given, else opened for the purpose); nil when it cannot be mapped.
    func mapped(_ path: String, group: String, descriptor: Int32? = nil) -> Words? {
        mappings.withLock { (mappings: inout [String: Words]) -> Words? in
            if let words = mappings[group] { return words }
            guard mappings.count < Self.limit, let words = Self.map(path, descriptor: descriptor) else { return nil }
            mappings[group] = words
            return words
        }
    }

    private static func map(_ path: String, descriptor given: Int32?) -> Words? {
        let descriptor: Int32
        if let given {
            descriptor = fcntl(given, F_DUPFD_CLOEXEC, 0)
        } else if case .regular(let opened)? = try? SafeFile.open(path, O_RDWR | O_CREAT) {
            descriptor = opened
        } else {
            return nil
        }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= size || ftruncate(descriptor, off_t(size)) == 0,
            let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED
        else {
            close(descriptor)
            return nil
        }
        return Words(base: base, descriptor: descriptor)
    }
}
