import Foundation

/// A place that keeps generic-password items: the Secret Service, or memory.
///
/// Every backend gives the same guarantees, checked by one conformance suite:
/// - `add` is atomic with respect to the primary key, across threads and (for backends shared
///   between processes) across processes: of two concurrent adds of one key, one fails with
///   ``StorageError/duplicateItem(_:)``;
/// - results come in creation order;
/// - a locked store is ``StorageError/locked(collection:)``, never an empty result.
public protocol ItemStore: Sendable {
    /// A short name for messages and reports (`memory`, `secret-service`).
    var name: String { get }

    /// Adds `item`; fails with `duplicateItem` when its primary key is taken.
    func add(_ item: StoredItem) throws(StorageError)

    /// The items matching `query`, at most `limit` of them (`nil`: all), in creation order.
    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem]

    /// Applies `change` to every item matching `query`; returns how many changed. When the
    /// change would make two items share a primary key nothing changes and it fails with
    /// `duplicateItem`.
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int

    /// Deletes every item matching `query`; returns how many were deleted.
    func delete(matching query: ItemQuery) throws(StorageError) -> Int

    /// Refuses, before anything is written, a deletion of `items` (what `query` matches now)
    /// that a policy around the store would refuse; the refusal is all it records. A caller
    /// that journals its deletions asks first, so a refused one leaves no intent and no record
    /// of a deletion. Plain stores allow every deletion.
    func authorizeDeletion(of items: [StoredItem], matching query: ItemQuery) throws(StorageError)

    /// The store beneath any policy view: where the tool's own journals (deletion intents,
    /// undo records) are written, and what a rollback goes through, so that no app's policy
    /// stops the tool from putting a group back. A plain store is its own.
    var journalStore: any ItemStore { get }

    /// What the device around the store answers when an item's access control asks the user
    /// (`device authentication`); nil: no device, which always allows. The keychain asks it
    /// before it returns or changes such an item's data, so every keychain made on a device's
    /// store asks that device, however it was made. No default: a view of another store
    /// passes that store's on, and cannot forget it.
    var userAuthentication: AuthenticationProvider? { get }
}

extension ItemStore {
    /// Plain stores have no policy: every deletion is allowed.
    public func authorizeDeletion(of items: [StoredItem], matching query: ItemQuery) throws(StorageError) {}

    /// A plain store is its own journal store.
    public var journalStore: any ItemStore { self }
}

/// How far a read of many items has come, for whoever waits on it: a store that reads a big
/// group in batches (the Secret Service, 100 secrets and more a call) reports after each batch
/// to the observer bound around the call. A task-local rather than a parameter: only the
/// outermost caller (a CLI command showing a progress line) cares, and every layer between it
/// and the store (keychain, token cache, snapshot) passes the read through unchanged.
///
/// A class, not a bare closure, in the task-local: with an optional closure as its value, a
/// release build (Swift 6.3.1) crashed in `swift_task_localValuePush` as it bound it, where a
/// debug build worked; task-locals of class type (`CallDeadline`'s too) work in both.
public final class ReadProgress: Sendable {
    private let report: @Sendable (_ read: Int, _ total: Int) -> Void

    /// An observer that calls `report` with the items read so far and the read's size.
    public init(_ report: @escaping @Sendable (_ read: Int, _ total: Int) -> Void) {
        self.report = report
    }

    /// The observer of reads made inside `$observer.withValue`; nil: nobody is watching.
    @TaskLocal public static var observer: ReadProgress?

    /// Tells the current observer, if any, that `read` of `total` items are read.
    public static func note(read: Int, of total: Int) {
        observer?.report(read, total)
    }
}

/// A store that reconnects to a service it lost (a restarted daemon), and counts how often, so
/// a load report can say how many reconnects a run saw.
public protocol ReconnectReporting: Sendable {
    /// Reconnections since the store was made.
    var reconnects: Int { get }
}

/// What a storage backend can fail with. The keychain core maps each case to a Keychain
/// Services status; the messages never contain secret data.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An item with this primary key exists already.
    case duplicateItem(PrimaryKey)
    /// A conditional update (``ItemChange/ifVersion``) found the item at another version:
    /// someone changed it since it was read. Nothing was changed.
    case versionConflict(PrimaryKey, expected: UInt64, found: UInt64)
    /// The collection holding the items is locked; the caller cannot be prompted.
    case locked(collection: String)
    /// The device's lock protects items the operation would use (their accessibility class),
    /// or would add; nothing was changed.
    case deviceLocked(ProtectionClass)
    /// No storage is reachable; the message says what to start or install.
    case unavailable(String)
    /// The backend did not answer in time.
    case timedOut(operation: String, seconds: Double)
    /// Another process held the lock of an access group for the whole wait (`seconds`); nothing
    /// was changed. `lockFile` is the group's lock file; `holder` the process holding it, when
    /// the system tells.
    case lockTimedOut(group: String, lockFile: String, seconds: Double, holder: LockHolder?)
    /// A stored item could not be decoded (written by something else, or damaged).
    case corruptItem(location: String, reason: String)
    /// An opt-in policy wrapped around the store (guarded delete) refused the operation;
    /// nothing was changed. `policy` names it, `message` says who was refused what, and why.
    case refused(policy: String, message: String)
    /// Any other failure of the underlying library, with its error domain, code and message.
    case backend(domain: String, code: Int, message: String)

    /// The message: neutral for any caller of the library, unless the process's front end
    /// words it its own way (``FrontEndWording``).
    public var description: String {
        FrontEndWording.words(for: self, neutral: neutralDescription)
    }

    /// The message in terms true for any caller: what to do is said, not which command does it.
    public var neutralDescription: String {
        switch self {
        case .duplicateItem(let key):
            "an item with \(key) already exists"
        case .versionConflict(let key, let expected, let found):
            "the item with \(key) is at version \(found), not \(expected): it changed since it was read; read it again and retry"
        case .locked(let collection):
            "the keyring collection '\(DisplayText(collection))' is locked and no prompt is allowed; \(Remedy.unlockKeyring)"
        case .deviceLocked(let protection):
            protection == .untilFirstUnlock
                ? "the device has not been unlocked since it booted: afterFirstUnlock items are out of reach until it is unlocked"
                : "the device is locked: whenUnlocked and whenPasscodeSet items are out of reach until it is unlocked"
        case .unavailable(let message):
            message
        case .timedOut(let operation, let seconds):
            "the Secret Service did not answer '\(DisplayText(operation))' within \(seconds) s; is the daemon hung? (raise the store's timeout)"
        case .lockTimedOut(let group, let lockFile, let seconds, let holder):
            "access group '\(DisplayText(group))' stayed locked for \(seconds) s: its lock file \(lockFile) is held by "
                + (holder.map(String.init(describing:))
                    ?? "a process the system does not name (see `cat /proc/locks`); retry, or wait longer (a longer timeout)")
        case .corruptItem(let location, let reason):
            "the stored item at \(location) cannot be read: \(reason)"
        case .refused(_, let message):
            message
        case .backend(let domain, let code, let message):
            "\(domain) error \(code): \(message)"
        }
    }
}
