import Foundation
import KeychainStorage

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
                message: "the lock file \(path) of access group '\(group)' is \(kind), not a regular file: \(Remedy.removeLockFile)")
        case .missing:
            throw SafeFile.posixError(ENOENT, "cannot create the lock file \(path)")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return held(descriptor) }
        // Within the operation's own deadline, when it has one (``SecretServiceStore/holdingLocks(_:_:)``).
        let limit = (CallDeadline.remaining(within: waitLimit) * 1000).rounded() / 1000
        let deadline = Date().addingTimeInterval(limit)
        let shared = words.mapped(path, group: group, descriptor: descriptor)
        // Counted before the next attempt: a holder letting go after it sees the count and wakes us.
        shared?.addWaiter(1)
        defer { shared?.addWaiter(-1) }
        var pause: Int32 = 1
        while true {
            let seen = shared?.releases
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return held(descriptor) }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw SafeFile.posixError(code, "cannot lock \(path)")
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                let holder = LockHolder.ofFlock(on: descriptor)
                close(descriptor)
                throw .lockTimedOut(group: group, lockFile: path, seconds: limit, holder: holder)
            }
            let milliseconds = Int32(min(remaining * 1000 + 1, Double(Self.recheckMilliseconds)))
            if let shared, let seen {
                shared.wait(whileReleasesAre: seen, milliseconds: milliseconds)
            } else {
                // The file could not be mapped, or is cut short: poll with a short, growing back-off.
                usleep(UInt32(min(pause, milliseconds)) * 1000)
                pause = min(pause * 2, 4)
            }
        }
    }

    /// A descriptor whose lock was just taken, its file given back the words' size if another
    /// process cut it short (the words work again: ``LockFileWords``).
    private func held(_ descriptor: Int32) -> Int32 {
        LockFileWords.restoreSize(descriptor)
        return descriptor
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
