import CFutex
import Foundation
import KeychainStorage
import Synchronization

/// Exclusive `flock`s on one file per access group, so that "check the key, then create" (and
/// update, and delete) is atomic across threads AND processes. Each acquisition opens its own
/// descriptor, so two threads of one process exclude each other like two processes do.
///
/// A waiter sleeps on a futex in the lock file (``LockFileWords``) and the holder wakes one on
/// release.
/// A blocking `flock` cannot be bounded (a stopped holder would hang us), and polling with a
/// back-off left the lock idle for up to the back-off after every release: with several apps
/// signing in at once, a third of both cores sat idle. (An inotify watch woke waiters too, but
/// closing an inotify instance waits for an RCU grace period, 10 to 20 ms, and halved the
/// throughput of two apps.) The futex wait is bounded, so a holder that died, whose lock the
/// kernel released without a wake, delays a waiter by at most that bound.
///
/// The lock file also holds the group's version (``LockFileWords``): odd while a holder may be
/// changing the group, even otherwise, and different after every hold. A store keeps the items
/// it read or wrote while the version stands (``RecentItems``), so a read that nothing could
/// have changed since costs no call to the daemon.
struct GroupLocks: Sendable {
    let directory: URL
    /// How long to wait for a lock another holder keeps (a hung or stopped process).
    let waitLimit: Double
    /// The lock files' shared words (wake-ups and versions), mapped once per store.
    let words = LockFileWords()
    /// How long a waiter sleeps before it tries the lock again unwoken.
    static let recheckMilliseconds = 20

    init(directory: URL, waitLimit: Double) {
        self.directory = directory
        self.waitLimit = waitLimit
    }

    /// Runs `body` holding the locks of `groups` (taken in sorted order: no deadlock).
    func withLocks<T>(_ groups: [String], _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try ensureDirectory()
        var held: [(descriptor: Int32, group: String)] = []
        defer { for lock in held { release(lock.descriptor, group: lock.group) } }
        for group in Set(groups).sorted() {
            held.append((try acquire(group, path: lockFile(for: group).path), group))
        }
        return try body()
    }

    /// The lock file of `group`: a readable prefix of the name, then a hash (names may hold any
    /// character, and two groups sharing a file would only serialise them more).
    func lockFile(for group: String) -> URL {
        words.lockFile(of: group) {
            let readable = String(group.unicodeScalars.prefix(40).map { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
                    ? Character(scalar) : "_"
            })
            return directory.appendingPathComponent("\(readable)-\(GLibValues.sha256Hex(group).prefix(32)).lock")
        }
    }

    // MARK: Versions

    /// The group's version now, nil when its lock file cannot be mapped (nothing is then kept).
    func version(of group: String) -> UInt32? {
        words(of: group)?.version
    }

    /// Marks the group as being changed (the caller holds its lock): the version becomes odd.
    /// Returns the version it had, or nil when it cannot be kept.
    func beginChange(of group: String) -> UInt32? {
        words(of: group)?.beginChange()
    }

    /// Ends a change begun with ``beginChange(of:)``: the version becomes even, and new.
    /// Returns it, or nil.
    func endChange(of group: String) -> UInt32? {
        words(of: group)?.endChange()
    }

    private func words(of group: String) -> LockFileWords.Words? {
        if let mapped = words.mapped(group: group) { return mapped }
        guard (try? ensureDirectory()) != nil else { return nil }
        return words.mapped(lockFile(for: group).path, group: group)
    }

    // MARK: Locking

    private func acquire(_ group: String, path: String) throws(StorageError) -> Int32 {
        let descriptor: Int32
        switch try SafeFile.open(path, O_RDWR | O_CREAT) {
        case .regular(let opened):
            descriptor = opened
        case .notRegular(let kind):
            // Not moved aside: another process may be doing the same, and two fresh lock files
            // would let both into the group at once.
            throw .backend(
                domain: "shared-keychain.locks", code: 0,
                message: "the lock file \(path) of access group '\(group)' is \(kind), not a regular file: remove it (shared-keychain creates a new one; no item is lost)")
        case .missing:
            throw SafeFile.posixError(ENOENT, "cannot create the lock file \(path)")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
        let deadline = Date().addingTimeInterval(waitLimit)
        let shared = words.mapped(path, group: group, descriptor: descriptor)
        // Counted before the next attempt: a holder letting go after it sees the count and wakes us.
        shared?.addWaiter(1)
        defer { shared?.addWaiter(-1) }
        var pause: Int32 = 1
        while true {
            let seen = shared?.releases ?? 0
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw SafeFile.posixError(code, "cannot lock \(path)")
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                close(descriptor)
                throw .timedOut(operation: "lock access group '\(group)'", seconds: waitLimit)
            }
            let milliseconds = Int32(min(remaining * 1000 + 1, Double(Self.recheckMilliseconds)))
            if let shared {
                shared.wait(whileReleasesAre: seen, milliseconds: milliseconds)
            } else {
                // The file could not be mapped: poll with a short, growing back-off.
                usleep(UInt32(min(pause, milliseconds)) * 1000)
                pause = min(pause * 2, 4)
            }
        }
    }

    /// Unlocks, wakes whoever waits for the lock, and closes.
    private func release(_ descriptor: Int32, group: String) {
        flock(descriptor, LOCK_UN)
        if LockFileWords.Words.hasWaiters(descriptor),
            let shared = words.mapped(group: group) ?? words.mapped(lockFile(for: group).path, group: group, descriptor: descriptor)
        {
            shared.wakeOne()
        }
        close(descriptor)
    }

    private func ensureDirectory() throws(StorageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .backend(
                domain: "shared-keychain.locks", code: 0,
                message: "cannot create the lock directory \(directory.path): \(error.localizedDescription)")
        }
    }
}

/// The first 16 bytes of each lock file, mapped shared and kept mapped for the store's life:
/// `releases` (at 0, the futex word waiters sleep on, counting releases that had waiters),
/// `waiters` (at 4), and the group's `version` (at 8). The lock itself is the `flock`, never
/// these. Lock files of earlier versions are empty: they grow to 16 bytes on first use.
final class LockFileWords: Sendable {
    static let size = 16
    /// Files mapped at most; past it, a group works unmapped (polling waits, nothing kept).
    static let limit = 256

    /// One mapped lock file.
    struct Words: @unchecked Sendable {
        let base: UnsafeMutableRawPointer

        private var releasesWord: UnsafeMutablePointer<UInt32> { base.assumingMemoryBound(to: UInt32.self) }
        private var waitersWord: UnsafeMutablePointer<UInt32> { (base + 4).assumingMemoryBound(to: UInt32.self) }
        private var versionWord: UnsafeMutablePointer<UInt32> { (base + 8).assumingMemoryBound(to: UInt32.self) }

        var releases: UInt32 { sk_atomic_load_u32(releasesWord) }
        var version: UInt32 { sk_atomic_load_u32(versionWord) }

        func addWaiter(_ delta: Int32) { _ = sk_atomic_add_u32(waitersWord, delta) }

        /// Sleeps until a release changes the count from `seen`, or `milliseconds` pass.
        func wait(whileReleasesAre seen: UInt32, milliseconds: Int32) {
            _ = sk_futex_wait_shared(releasesWord, seen, milliseconds)
        }

        /// Wakes one waiter: only one can take the lock, and waking them all (eight apps signing
        /// in at once) woke seven each time to find it taken again, on two cores the holder needs.
        /// One that fails goes back to sleep; the next release wakes the next.
        func wakeOne() {
            _ = sk_atomic_add_u32(releasesWord, 1)
            _ = sk_futex_wake_shared(releasesWord, 1)
        }

        /// Makes the version odd (from an even one; an odd one, a holder that died mid-change,
        /// moves on by two); returns what it was.
        func beginChange() -> UInt32 {
            let before = version
            _ = sk_atomic_add_u32(versionWord, before % 2 == 0 ? 1 : 2)
            return before
        }

        /// Makes the version even again; returns it.
        func endChange() -> UInt32 {
            sk_atomic_add_u32(versionWord, version % 2 == 0 ? 2 : 1)
        }

        /// Whether anyone waits on the lock file of `descriptor`, read without mapping it: a hint
        /// (a waiter counts itself before it tries the lock, so one that failed is seen here).
        static func hasWaiters(_ descriptor: Int32) -> Bool {
            var waiters: UInt32 = 0
            return pread(descriptor, &waiters, 4, 4) == 4 && waiters != 0
        }
    }

    /// Mapped files by group.
    private let mappings = Mutex<[String: UnsafeMutableRawPointer]>([:])
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
        for base in mappings.withLock({ Array($0.values) }) { munmap(base, Self.size) }
    }

    /// The words of `group`'s lock file if they are mapped already.
    func mapped(group: String) -> Words? {
        mappings.withLock { $0[group] }.map(Words.init(base:))
    }

    /// The words of `group`'s lock file at `path`, mapped on first use (through `descriptor`
    /// when given, else opened for the purpose); nil when it cannot be mapped.
    func mapped(_ path: String, group: String, descriptor: Int32? = nil) -> Words? {
        mappings.withLock { (mappings: inout [String: UnsafeMutableRawPointer]) -> Words? in
            if let base = mappings[group] { return Words(base: base) }
            guard mappings.count < Self.limit, let base = Self.map(path, descriptor: descriptor) else { return nil }
            mappings[group] = base
            return Words(base: base)
        }
    }

    private static func map(_ path: String, descriptor given: Int32?) -> UnsafeMutableRawPointer? {
        var descriptor = given ?? -1
        if given == nil {
            guard case .regular(let opened)? = try? SafeFile.open(path, O_RDWR | O_CREAT) else { return nil }
            descriptor = opened
        }
        defer { if given == nil { close(descriptor) } }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        if status.st_size < size, ftruncate(descriptor, off_t(size)) != 0 { return nil }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else { return nil }
        return base
    }
}
