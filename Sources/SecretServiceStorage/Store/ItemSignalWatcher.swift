import CLibsecret
import Foundation
import KeychainStorage
import Logging
import Synchronization

extension SecretServiceStore: ItemWatching {
    /// Watches `groups` in the Secret Service: changes made by any process sharing the keyring
    /// (this one included) are reported as they happen, from the daemon's D-Bus signals.
    ///
    /// Returns once subscribed, after one listing of the groups (one path search per group and
    /// one `GetSecrets`, as ``items(matching:limit:)``) that gives the watch the attributes of
    /// the items already there, so their deletion can be reported too. A locked collection is
    /// ``StorageError/locked(collection:)``, as for every other operation.
    ///
    /// Events are stamped with the time this process received the signal. An update that
    /// changes an item's searchable attributes rewrites it, and is reported as `created` (the
    /// new version) and `deleted` (the old one); one that changes only data or label is
    /// `changed`. An item created while this call is still listing may be reported as
    /// `changed`: the listing already knew it. Each watch runs a thread of its own until it is
    /// cancelled.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        let groups = Self.unique(groups)
        guard !groups.isEmpty else {
            throw .backend(domain: "shared-keychain", code: 0, message: "watch: no access group to watch")
        }
        return try ItemSignalWatcher.start(groups: groups, client: client, logger: configuration.logger) {
            () throws(StorageError) in
            try self.perform("watch") { service in
                try self.fetch(ItemQuery(groups: groups), writing: false, service).compactMap { found in
                    ItemSignalWatcher.KnownItem(attributes: ItemAttributes.of(found.envelope.item))
                        .map { (path: found.path, item: $0) }
                }
            }
        }
    }
}

/// Turns the Secret Service's item signals into ``ItemEvent``s for some access groups.
///
/// GDBus delivers a signal subscription's callbacks on the thread-default `GMainContext` of
/// the thread that subscribed, so each watcher has a thread of its own: it pushes a private
/// context, subscribes, seeds its map of known items (with the context popped, so libsecret
/// never binds anything to it), then runs a `GMainLoop` on it until ``stop()``, and
/// unsubscribes before it ends.
///
/// What gnome-keyring 42 sends (checked with dbus-monitor), and how it is read:
/// - `Collection.ItemCreated(o)` for a new item, and ALSO for an item rewritten in place
///   (CreateItem with REPLACE, which the store uses when an update changes the label): a path
///   already known is reported as `changed`;
/// - nothing for `Item.SetSecret`, which is how the store updates an item's data in place: the
///   store then sends its own `org.sharedkeychain.Item.SecretChanged` on the item's path, read
///   as `ItemCreated` is;
/// - `Collection.ItemChanged(o)` when an item's label or attributes are set, but also for
///   every item of a collection that is locked or unlocked (after a daemon restart, the store
///   unlocks it): `changed` only when a known item's attributes differ from what was known;
/// - `Collection.ItemDeleted(o)` for each item deleted alone: `deleted`;
/// - `Service.CollectionDeleted(o)`, and no `ItemDeleted` at all, when a whole collection goes
///   (the per-group layout wiping a group): `deleted` for every known item of the collection.
///
/// A deleted item's attributes can no longer be read, so the watcher keeps every watched
/// item's attributes by path: seeded by one search when it starts (after subscribing, so no
/// change falls between the two), updated from each created or changed item's `Attributes`.
///
/// `@unchecked Sendable`: `known` and `nextSerial` are touched only on the watcher's own
/// thread (seeding and signal callbacks both run there); the GLib pointers are owned for the
/// watcher's lifetime and only used through thread-safe calls (`g_main_context_invoke_full`,
/// `g_main_loop_quit`) from other threads; the rest is immutable.
final class ItemSignalWatcher: @unchecked Sendable {
    /// One watched item as last seen: its attributes, enough to name it in an event once it is
    /// gone, and to tell a real change from a signal that changed nothing.
    struct KnownItem: Sendable, Equatable {
        let attributes: [String: String]
        let group: String
        let account: String
        let service: String

        /// The item named by its Secret Service attributes, or nil when they are not those of
        /// a keychain item (another schema, or no access group).
        init?(attributes: [String: String]) {
            guard attributes[ItemAttributes.schemaKey] == ItemAttributes.schemaName,
                let group = attributes[ItemAttributes.group],
                let account = attributes[ItemAttributes.account]
            else { return nil }
            self.attributes = attributes
            self.group = group
            self.account = account
            // Internet passwords have no service.
            self.service = attributes[ItemAttributes.service] ?? ""
        }

        func event(_ kind: ItemEvent.Kind, at time: Date) -> ItemEvent {
            ItemEvent(
                kind: kind, group: group, account: account, service: service,
                addedBy: ItemAttributes.addedBy(in: attributes), time: time)
        }
    }

    /// What seeding found: each watched item's path and attributes.
    typealias Seed = @Sendable () throws(StorageError) -> [(path: String, item: KnownItem)]

    /// The Secret Service's signals (from its daemon), and the store's own `SecretChanged`
    /// (from any store writing to it: gnome-keyring announces nothing for `Item.SetSecret`).
    private static let signals: [(sender: String?, interface: String, member: String)] = [
        (SecretServiceClient.busName, SecretServiceClient.collectionInterface, "ItemCreated"),
        (SecretServiceClient.busName, SecretServiceClient.collectionInterface, "ItemChanged"),
        (SecretServiceClient.busName, SecretServiceClient.collectionInterface, "ItemDeleted"),
        (SecretServiceClient.busName, SecretServiceClient.serviceInterface, "CollectionDeleted"),
        (nil, SecretServiceClient.storeInterface, SecretServiceClient.secretChanged),
    ]

    private let groups: Set<String>
    private let client: SecretServiceClient
    private let connection: ConnectionHandle
    private let logger: Logger
    private let continuation: AsyncStream<ItemEvent>.Continuation
    private let context: OpaquePointer
    private let loop: OpaquePointer

    // Only on the watcher's thread.
    private var known: [String: (serial: UInt64, item: KnownItem)] = [:]
    private var nextSerial: UInt64 = 0

    private init(
        groups: [String], client: SecretServiceClient, connection: ConnectionHandle, logger: Logger,
        continuation: AsyncStream<ItemEvent>.Continuation
    ) {
        self.groups = Set(groups)
        self.client = client
        self.connection = connection
        self.logger = logger
        self.continuation = continuation
        guard let context = g_main_context_new() else { preconditionFailure("g_main_context_new returned NULL") }
        guard let loop = g_main_loop_new(context, 0) else { preconditionFailure("g_main_loop_new returned NULL") }
        self.context = context
        self.loop = loop
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Starts a watcher thread for `groups` and returns once it is subscribed and seeded.
    static func start(
        groups: [String], client: SecretServiceClient, logger: Logger, seed: @escaping Seed
    ) throws(StorageError) -> ItemWatch {
        let connection: ConnectionHandle
        do {
            connection = try SessionBus.connection(timeout: client.timeout)
        } catch {
            throw .unavailable("cannot watch the Secret Service: \(error.message)")
        }
        let (events, continuation) = ItemWatch.makeStream()
        let watcher = ItemSignalWatcher(
            groups: groups, client: client, connection: connection, logger: logger, continuation: continuation)
        let handoff = Handoff()
        let thread = Thread { watcher.run(seed: seed, ready: handoff.report) }
        thread.name = "keychain-watch"
        thread.start()
        switch handoff.wait() {
        case .success(let count):
            return ItemWatch(groups: groups, initialItemCount: count, events: events, continuation: continuation) {
                watcher.stop()
            }
        case .failure(let error):
            continuation.finish()
            throw error
        }
    }

    /// Ends the loop from any thread; the watcher thread then unsubscribes and ends.
    func stop() {
        g_main_context_invoke_full(
            context, gint(G_PRIORITY_DEFAULT),
            { loop in
                if let loop { g_main_loop_quit(OpaquePointer(loop)) }
                return 0  // G_SOURCE_REMOVE
            },
            UnsafeMutableRawPointer(g_main_loop_ref(loop)),
            { loop in if let loop { g_main_loop_unref(OpaquePointer(loop)) } })
    }

    // MARK: The watcher's thread

    /// Subscribes, seeds, reports readiness (the item count, or why it failed), then runs the
    /// loop until ``stop()``.
    private func run(seed: Seed, ready: (Result<Int, StorageError>) -> Void) {
        // GDBus binds a subscription to the context that is the thread default when it is made.
        g_main_context_push_thread_default(context)
        // Callbacks get the watcher unretained: it outlives them, as this thread holds it until
        // after unsubscribing, and the context is never iterated again after that.
        let data = Unmanaged.passUnretained(self).toOpaque()
        let subscriptions = Self.signals.map { signal in
            g_dbus_connection_signal_subscribe(
                connection.pointer, signal.sender, signal.interface, signal.member, nil, nil,
                G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, path, _, member, parameters, data in
                    guard let member, let data else { return }
                    let watcher = Unmanaged<ItemSignalWatcher>.fromOpaque(data).takeUnretainedValue()
                    watcher.handle(String(cString: member), parameters, objectPath: path.map { String(cString: $0) })
                },
                data, nil)
        }
        defer {
            for id in subscriptions where id != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, id) }
        }
        // Subscribed first, seeded second: a change made during the search is queued in the
        // context and handled after it. The seed runs WITHOUT the private context as thread
        // default: a libsecret proxy made during it (a reconnect) would otherwise bind its own
        // signal handlers to this loop and react to the daemon behind the store's back.
        g_main_context_pop_thread_default(context)
        let seeded = Result { () throws(StorageError) in try seed() }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        switch seeded {
        case .success(let items):
            for (path, item) in items { remember(path, item) }
        case .failure(let error):
            ready(.failure(error))
            return
        }
        ready(.success(known.count))
        logger.debug("watching the Secret Service", metadata: ["groups": "\(groups.sorted())", "items": "\(known.count)"])
        g_main_loop_run(loop)
        logger.debug("stopped watching the Secret Service", metadata: ["groups": "\(groups.sorted())"])
    }

    private func remember(_ path: String, _ item: KnownItem) {
        nextSerial += 1
        known[path] = (nextSerial, item)
    }

    /// One signal: `(o)` holding an item path (or, for `CollectionDeleted`, a collection path);
    /// the store's `SecretChanged` has no arguments and is sent on the item's own path.
    private func handle(_ member: String, _ parameters: OpaquePointer?, objectPath: String?) {
        let argument = parameters.flatMap { Variant.stringChild($0, at: 0) }
        guard let path = member == SecretServiceClient.secretChanged ? objectPath : argument else { return }
        let now = Date()
        switch member {
        case "ItemCreated", SecretServiceClient.secretChanged:
            // A REPLACE rewrites a known item and announces it as created, and SetSecret is
            // announced by the store that made it: either is a change of a known item.
            let kind: ItemEvent.Kind = known[path] == nil ? .created : .changed
            switch read(path) {
            case .item(let item): update(path, to: item, reporting: kind, at: now)
            // Gone already (an update that moved the item deletes the old one at once).
            case .gone: forget(path, at: now)
            case .unreadable: break
            }
        case "ItemChanged":
            // Also sent for every item of a collection that is locked or unlocked (a daemon
            // restart, `keyring lock`): only a known item whose attributes changed is reported.
            guard let before = known[path]?.item else { return }
            switch read(path) {
            case .item(let item) where item != before: update(path, to: item, reporting: .changed, at: now)
            case .item, .unreadable: break
            case .gone: forget(path, at: now)
            }
        case "ItemDeleted":
            forget(path, at: now)
        case "CollectionDeleted":
            let prefix = path + "/"
            let gone = known.filter { $0.key.hasPrefix(prefix) }.sorted { $0.value.serial < $1.value.serial }
            for (itemPath, _) in gone { forget(itemPath, at: now) }
        default:
            break
        }
    }

    /// Records `item` at `path` and reports it, when it is in a watched group.
    private func update(_ path: String, to item: KnownItem, reporting kind: ItemEvent.Kind, at time: Date) {
        guard groups.contains(item.group) else {
            known.removeValue(forKey: path)
            return
        }
        if let serial = known[path]?.serial {
            known[path] = (serial, item)
        } else {
            remember(path, item)
        }
        continuation.yield(item.event(kind, at: time))
    }

    /// Reports a known item at `path` as deleted.
    private func forget(_ path: String, at time: Date) {
        if let gone = known.removeValue(forKey: path) {
            continuation.yield(gone.item.event(.deleted, at: time))
        }
    }

    /// What reading a signalled item gave.
    private enum Reading {
        case item(KnownItem)
        /// No such item any more, or no longer a keychain item.
        case gone
        /// The daemon did not answer (restarting, timed out): nothing is concluded.
        case unreadable
    }

    /// The item at `path` as its attributes name it. A failed read is logged and concludes
    /// nothing: a watch reports what it can, never a deletion it did not see.
    private func read(_ path: String) -> Reading {
        do {
            let service = try client.current()
            guard let attributes = try client.itemAttributes(service, path: path),
                let item = KnownItem(attributes: attributes)
            else { return .gone }
            return .item(item)
        } catch {
            logger.debug(
                "could not read the attributes of a changed item", metadata: ["path": "\(path)", "reason": "\(error)"])
            return .unreadable
        }
    }
}

/// Carries the watcher thread's first outcome (item count, or why it failed) to the thread
/// that started it.
private final class Handoff: Sendable {
    private let outcome = Mutex<Result<Int, StorageError>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func report(_ result: Result<Int, StorageError>) {
        outcome.withLock { $0 = result }
        ready.signal()
    }

    func wait() -> Result<Int, StorageError> {
        ready.wait()
        // report() stored an outcome before it signalled.
        return outcome.withLock { $0 } ?? .failure(.backend(domain: "shared-keychain", code: 0, message: "the watch did not start"))
    }
}
