import CLibsecret
import Foundation
import KeychainStorage
import Logging
import Synchronization

/// The D-Bus calls the store makes, each bounded by the deadline, on one shared connected
/// `SecretService`. Knows nothing about items or groups.
final class SecretServiceClient: Sendable {
    /// What one path search found.
    struct SearchResult: Sendable {
        var unlocked: [String]
        var locked: [String]
    }

    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let gnomeKeyringInterface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let serviceInterface = "org.freedesktop.Secret.Service"

    let timeout: Double
    /// The most secrets one `GetSecrets` asks for (``defaultSecretsBatch``; tests make it small).
    let secretsBatch: Int
    private let logger: Logger
    private let handle = Mutex<ServiceHandle?>(nil)

    init(timeout: Double, secretsBatch: Int = SecretServiceClient.defaultSecretsBatch, logger: Logger) {
        self.timeout = timeout
        self.secretsBatch = max(1, secretsBatch)
        self.logger = logger
    }

    // MARK: Connection

    /// The connected service, connecting on first use.
    func current() throws(GLibFailure) -> ServiceHandle {
        if let existing = handle.withLock({ $0 }) { return existing }
        return try reconnect(replacing: nil)
    }

    /// Drops `stale` (the daemon restarted or went away) and connects again. When another
    /// thread already replaced it, that newer connection is used.
    func reconnect(replacing stale: ServiceHandle?) throws(GLibFailure) -> ServiceHandle {
        let newer: ServiceHandle? = handle.withLock { current in
            guard let current, current !== stale else { return nil }
            return current
        }
        if let newer { return newer }
        if stale != nil {
            logger.debug("reconnecting to the Secret Service", metadata: ["bus": "\(SessionBus.address)"])
        }
        let connection = try SessionBus.connection(timeout: timeout)
        // Our own service, not libsecret's shared one: it opens a session with the daemon that
        // runs now, and subscribes to no signal (``QuietSecretService``).
        let service = try CallDeadline.run(seconds: timeout, call: "OpenSession") { cancellable, error in
            QuietSecretService.open(cancellable, &error)
        }
        guard let service else {
            throw GLibFailure(call: "OpenSession", message: "libsecret returned no service", kind: .serviceMissing)
        }
        let fresh = ServiceHandle(taking: service, connection: connection)
        return handle.withLock { current in
            if let current, current !== stale { return current }
            current = fresh
            return fresh
        }
    }

    // MARK: Items

    /// `SearchItems` over every collection.
    func searchPaths(_ service: ServiceHandle, attributes: [String: String]) throws(GLibFailure) -> SearchResult {
        try GLibValues.withStringTable(attributes) { (table) throws(GLibFailure) -> SearchResult in
            var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            let ok = try CallDeadline.run(seconds: timeout, call: "SearchItems") { cancellable, error in
                secret_service_search_for_dbus_paths_sync(
                    service.service, nil, table, cancellable, &unlocked, &locked, &error)
            }
            let result = SearchResult(unlocked: GLibValues.takeStrings(unlocked), locked: GLibValues.takeStrings(locked))
            guard ok != 0 else { throw GLibFailure(call: "SearchItems", message: "the search failed") }
            return result
        }
    }

    /// `Collection.SearchItems` in one collection: its matching items, locked ones included (the
    /// collection's lock decides whether their secrets can be read). Unlike the service-wide
    /// search, gnome-keyring walks only this collection's items. An unknown collection is
    /// `.noSuchObject`.
    func searchPaths(_ service: ServiceHandle, collection: String, attributes: [String: String]) throws(GLibFailure) -> [String] {
        let reply = try call(
            service, path: collection, interface: Self.collectionInterface, method: "SearchItems",
            parameters: Variant.tuple([Variant.stringDictionary(attributes)]), replyType: "(ao)")
        defer { g_variant_unref(reply) }
        guard let paths = Variant.firstChild(reply) else { return [] }
        defer { g_variant_unref(paths) }
        return Variant.objectPaths(of: paths)
    }

    /// The secrets of many unlocked items: ONE `GetSecrets` call for up to ``firstBatch`` paths;
    /// more are read in batches, telling ``ReadProgress/observer`` after each.
    /// Paths missing from the answer (deleted meanwhile) are missing from the result.
    ///
    /// The call is made here and each `(oayays)` decoded with libsecret's
    /// `secret_service_decode_dbus_secret`: libsecret 0.20.5's own GetSecrets wrappers
    /// (`secret_service_get_secret(s)_for_dbus_path(s)_sync`) leak about 1.6 KB per call.
    func secrets(_ service: ServiceHandle, paths: [String]) throws(GLibFailure) -> [String: Data] {
        var result: [String: Data] = [:]
        result.reserveCapacity(paths.count)
        try inBatches(paths) { (batch) throws(GLibFailure) in
            result.merge(try secretsInOneCall(service, paths: batch)) { _, new in new }
        }
        return result
    }

    /// Hands `paths` to `body` in the batches ``secrets(_:paths:)`` reads them in: all at once
    /// up to ``firstBatch``; more in batches paced to the daemon, each with a call's whole
    /// limit, telling ``ReadProgress/observer`` after each. A reader that reads each batch's
    /// secrets (``secretsInOneCall(_:paths:)``) and lets them go before the next holds one
    /// batch of secrets at a time, not the whole group's.
    func inBatches<Failure: Error>(_ paths: [String], _ body: (_ batch: [String]) throws(Failure) -> Void) throws(Failure) {
        var batch = min(secretsBatch, Self.firstBatch)
        guard paths.count > batch else {
            try body(paths)
            return
        }
        // Many items: in batches sized to take about a quarter of a call's limit at the pace the
        // daemon kept so far, each with a call's whole limit (the operation's deadline moves with
        // them), so a large group is read at the daemon's pace rather than timed out. The pace
        // is the daemon's: gnome-keyring finds each item by walking all it holds, so a batch of
        // 1,000 takes 7 s when it holds 10,000 items, and 0.2 s when it holds 100.
        var start = 0
        while start < paths.count {
            let end = min(start + batch, paths.count)
            CallDeadline.renew(seconds: timeout)
            let began = ContinuousClock.now
            try body(Array(paths[start..<end]))
            batch = Self.nextBatch(after: end - start, took: began.duration(to: .now), limit: timeout, most: secretsBatch)
            start = end
            ReadProgress.note(read: start, of: paths.count)
        }
    }

    /// The most secrets one `GetSecrets` asks for, however fast the daemon answers.
    static let defaultSecretsBatch = 1_000
    /// The first batch of a batched read, before the daemon's pace is known (a daemon that
    /// holds 10,000 items answers it in 0.7 s), and the most one unbatched read asks for.
    static let firstBatch = 100

    /// The size of the next batch after `count` secrets took `took`: what a quarter of `limit`
    /// holds at that pace, never more than double the last, at least 10 and at most `most`.
    static func nextBatch(after count: Int, took: Duration, limit: Double, most: Int) -> Int {
        let seconds = max(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18, 0.001)
        let fits = min(Double(count) / seconds * limit / 4, Double(count * 2))
        return min(most, max(10, Int(fits)))
    }

    /// The secrets of `paths` in ONE `GetSecrets`; paths missing from the answer are missing
    /// from the result.
    func secretsInOneCall(_ service: ServiceHandle, paths: [String]) throws(GLibFailure) -> [String: Data] {
        guard !paths.isEmpty else { return [:] }
        guard let session = secret_service_get_session_dbus_path(service.service) else {
            throw GLibFailure(call: "GetSecrets", message: "no session with the Secret Service", kind: .staleSession)
        }
        let items = try GLibValues.withStringArray(paths) { (array) throws(GLibFailure) -> OpaquePointer in
            guard let items = g_variant_new_objv(array, -1) else {
                throw GLibFailure(call: "GetSecrets", message: "an item path is not a D-Bus object path")
            }
            return items
        }
        let reply = try call(
            service, path: Self.servicePath, interface: "org.freedesktop.Secret.Service", method: "GetSecrets",
            parameters: Variant.tuple([items, Variant.objectPath(String(cString: session))]),
            replyType: "(a{o(oayays)})")
        defer { g_variant_unref(reply) }
        guard let dictionary = Variant.firstChild(reply) else { return [:] }
        defer { g_variant_unref(dictionary) }
        var result: [String: Data] = [:]
        result.reserveCapacity(paths.count)
        let count = g_variant_n_children(dictionary)
        var index: gsize = 0
        while index < count {
            defer { index += 1 }
            guard let entry = g_variant_get_child_value(dictionary, index) else { continue }
            defer { g_variant_unref(entry) }
            guard let path = Variant.stringChild(entry, at: 0), let secret = g_variant_get_child_value(entry, 1) else {
                continue
            }
            defer { g_variant_unref(secret) }
            guard let value = secret_service_decode_dbus_secret(service.service, secret) else {
                // After a daemon restart the new daemon may hand out the same session path with a
                // different key (another connection in this process opened it): a stale session.
                throw GLibFailure(call: "GetSecrets", message: "a secret could not be decoded with the session", kind: .staleSession)
            }
            result[path] = Self.bytes(of: value)
            secret_value_unref(UnsafeMutableRawPointer(value))
        }
        return result
    }

    /// `CreateItem` in `collection`; returns the new (or replaced) item's path. Sent to the
    /// daemon the session belongs to (``call(_:path:interface:method:parameters:replyType:)``):
    /// libsecret's own call follows the well-known name, so after another process restarted the
    /// daemon it could deliver our encrypted secret to a new daemon that gave our session path to
    /// another key, which stores garbage.
    func createItem(
        _ service: ServiceHandle,
        collection: String,
        label: String,
        attributes: [String: String],
        secret: Data,
        contentType: String,
        replace: Bool
    ) throws(GLibFailure) -> String {
        let properties = Variant.vardict([
            ("org.freedesktop.Secret.Item.Label", Variant.string(label)),
            ("org.freedesktop.Secret.Item.Attributes", Variant.stringDictionary(attributes)),
        ])
        let value = Self.makeValue(secret, contentType: contentType)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        guard let encoded = secret_service_encode_dbus_secret(service.service, value) else {
            throw GLibFailure(call: "CreateItem", message: "the secret could not be encoded with the session", kind: .staleSession)
        }
        let reply = try call(
            service, path: collection, interface: Self.collectionInterface, method: "CreateItem",
            parameters: Variant.tuple([properties, encoded, g_variant_new_boolean(replace ? 1 : 0)]), replyType: "(oo)")
        defer { g_variant_unref(reply) }
        guard let path = Variant.stringChild(reply, at: 0), let prompt = Variant.stringChild(reply, at: 1) else {
            throw GLibFailure(call: "CreateItem", message: "no item path returned")
        }
        // gnome-keyring answers a locked collection with a prompt to unlock it; nothing is created.
        guard prompt == "/", path != "/" else {
            throw GLibFailure(call: "CreateItem", message: "the collection is locked", kind: .locked)
        }
        return path
    }

    /// `Item.SetSecret`: replaces the secret of the item at `path`, its label and attributes
    /// untouched. gnome-keyring stores it in one step (one rewrite of the collection file),
    /// where `CreateItem` with REPLACE first searches the collection for the attributes, sets
    /// them, and then the secret (two rewrites). Sent to the daemon the session belongs to.
    func setSecret(_ service: ServiceHandle, path: String, secret: Data, contentType: String) throws(GLibFailure) {
        let value = Self.makeValue(secret, contentType: contentType)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        guard let encoded = secret_service_encode_dbus_secret(service.service, value) else {
            throw GLibFailure(call: "SetSecret", message: "the secret could not be encoded with the session", kind: .staleSession)
        }
        let reply = try call(
            service, path: path, interface: Self.itemInterface, method: "SetSecret", parameters: Variant.tuple([encoded]),
            replyType: nil)
        g_variant_unref(reply)
    }

    /// What the store announces after `Item.SetSecret`, for which gnome-keyring sends no signal
    /// (`CreateItem` with REPLACE, the other way to rewrite an item, sends `ItemCreated`): the
    /// signal `SecretChanged` of this interface, on the item's path, to anyone listening.
    static let storeInterface = "org.sharedkeychain.Item"
    static let secretChanged = "SecretChanged"

    /// Broadcasts ``secretChanged`` for the item at `path`. Queued on the connection that made
    /// the change, ahead of its next call, so a watcher hears of it before any later change
    /// that call makes. A signal that cannot be sent is no failure of the write.
    func announceSecretChanged(_ service: ServiceHandle, path: String) {
        var error: UnsafeMutablePointer<GError>?
        g_dbus_connection_emit_signal(service.connection.pointer, nil, path, Self.storeInterface, Self.secretChanged, nil, &error)
        if let error { g_error_free(error) }
    }

    /// `Item.Delete` by path.
    func deleteItem(_ service: ServiceHandle, path: String) throws(GLibFailure) {
        _ = try CallDeadline.run(seconds: timeout, call: "Item.Delete") { cancellable, error in
            secret_service_delete_item_dbus_path_sync(service.service, path, cancellable, &error)
        }
    }

    /// An item's attributes (`org.freedesktop.Secret.Item.Attributes`), or nil when the item is
    /// gone. Readable without the secret: watches use it to name items they are told about.
    func itemAttributes(_ service: ServiceHandle, path: String) throws(GLibFailure) -> [String: String]? {
        let reply: OpaquePointer
        do {
            reply = try call(
                service, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                parameters: Variant.tuple([Variant.string(Self.itemInterface), Variant.string("Attributes")]),
                replyType: "(v)")
        } catch where error.kind == .noSuchObject || error.remoteName == "org.freedesktop.DBus.Error.InvalidArgs" {
            return nil
        }
        defer { g_variant_unref(reply) }
        guard let value = Variant.firstChild(reply) else { return nil }
        defer { g_variant_unref(value) }
        return Variant.stringDictionary(of: value)
    }

    /// What another client sees of an item besides its secret.
    struct ItemProperties {
        var attributes: [String: String]
        var label: String?
        /// Seconds since 1970, as the Secret Service keeps them.
        var created: UInt64
        var modified: UInt64
    }

    /// An item's attributes, label and dates in ONE `GetAll`, or nil when the item is gone.
    func itemProperties(_ service: ServiceHandle, path: String) throws(GLibFailure) -> ItemProperties? {
        let reply: OpaquePointer
        do {
            reply = try call(
                service, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
                parameters: Variant.tuple([Variant.string(Self.itemInterface)]), replyType: "(a{sv})")
        } catch where error.kind == .noSuchObject || error.remoteName == "org.freedesktop.DBus.Error.InvalidArgs" {
            return nil
        }
        defer { g_variant_unref(reply) }
        guard let all = Variant.firstChild(reply) else { return nil }
        defer { g_variant_unref(all) }
        func read<T>(_ key: String, _ decode: (OpaquePointer) -> T?) -> T? {
            guard let value = Variant.lookup(all, key) else { return nil }
            defer { g_variant_unref(value) }
            return decode(value)
        }
        return ItemProperties(
            attributes: read("Attributes", Variant.stringDictionary(of:)) ?? [:],
            label: read("Label", Variant.string(of:)),
            created: read("Created", Variant.uint64(of:)) ?? 0,
            modified: read("Modified", Variant.uint64(of:)) ?? 0)
    }

    /// `Lock` on collections or items.
    func lock(_ service: ServiceHandle, paths: [String]) throws(GLibFailure) {
        guard !paths.isEmpty else { return }
        try GLibValues.withStringArray(paths) { (array) throws(GLibFailure) in
            var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            _ = try CallDeadline.run(seconds: timeout, call: "Lock") { cancellable, error in
                secret_service_lock_dbus_paths_sync(service.service, array, cancellable, &locked, &error)
            }
            _ = GLibValues.takeStrings(locked)
        }
    }

    // MARK: Collections

    /// A collection property (`Label`, `Locked`, ...), or nil when there is no such collection.
    /// Release the returned variant with `g_variant_unref`.
    func collectionProperty(_ service: ServiceHandle, path: String, name: String) throws(GLibFailure) -> OpaquePointer? {
        let reply: OpaquePointer
        do {
            reply = try call(
                service, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                parameters: Variant.tuple([Variant.string(Self.collectionInterface), Variant.string(name)]),
                replyType: "(v)")
        } catch where error.kind == .noSuchObject || error.remoteName == "org.freedesktop.DBus.Error.InvalidArgs" {
            return nil
        }
        defer { g_variant_unref(reply) }
        return Variant.firstChild(reply)
    }

    /// The collection an alias (`default`) points to, or nil.
    func readAlias(_ service: ServiceHandle, name: String) throws(GLibFailure) -> String? {
        let path = try CallDeadline.run(seconds: timeout, call: "ReadAlias") { cancellable, error in
            secret_service_read_alias_dbus_path_sync(service.service, name, cancellable, &error)
        }
        guard let path else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// The paths of every collection.
    func collectionPaths(_ service: ServiceHandle) throws(GLibFailure) -> [String] {
        let reply = try call(
            service, path: Self.servicePath, interface: "org.freedesktop.DBus.Properties", method: "Get",
            parameters: Variant.tuple([Variant.string("org.freedesktop.Secret.Service"), Variant.string("Collections")]),
            replyType: "(v)")
        defer { g_variant_unref(reply) }
        guard let value = Variant.firstChild(reply) else { return [] }
        defer { g_variant_unref(value) }
        return Variant.objectPaths(of: value)
    }

    /// Creates a persistent collection locked with `masterPassword`, without a prompt
    /// (gnome-keyring's `CreateWithMasterPassword`). Returns its path.
    func createCollection(_ service: ServiceHandle, label: String, masterPassword: String) throws(GLibFailure) -> String {
        let properties = Variant.vardict([("org.freedesktop.Secret.Collection.Label", Variant.string(label))])
        let master = Self.encodeSecret(service, text: masterPassword)
        let reply = try call(
            service, path: Self.servicePath, interface: Self.gnomeKeyringInterface, method: "CreateWithMasterPassword",
            parameters: Variant.tuple([properties, master]), replyType: "(o)")
        defer { g_variant_unref(reply) }
        guard let path = Variant.stringChild(reply, at: 0) else {
            throw GLibFailure(call: "CreateWithMasterPassword", message: "no collection path returned")
        }
        return path
    }

    /// Unlocks a collection with its master password, without a prompt.
    func unlockCollection(_ service: ServiceHandle, path: String, masterPassword: String) throws(GLibFailure) {
        let master = Self.encodeSecret(service, text: masterPassword)
        let reply = try call(
            service, path: Self.servicePath, interface: Self.gnomeKeyringInterface, method: "UnlockWithMasterPassword",
            parameters: Variant.tuple([Variant.objectPath(path), master]), replyType: nil)
        g_variant_unref(reply)
    }

    /// `Collection.Delete`: the collection and every item in it, in one call.
    func deleteCollection(_ service: ServiceHandle, path: String) throws(GLibFailure) {
        let reply = try call(
            service, path: path, interface: Self.collectionInterface, method: "Delete", parameters: nil, replyType: "(o)")
        defer { g_variant_unref(reply) }
        // A prompt would need a user; gnome-keyring does not ask for one here.
        if let prompt = Variant.stringChild(reply, at: 0), prompt != "/" {
            throw GLibFailure(call: "Collection.Delete", message: "the Secret Service asked for a prompt", kind: .locked)
        }
    }

    /// The unique name owning `org.freedesktop.secrets` now, or nil when nobody does.
    func nameOwner(_ service: ServiceHandle) throws(GLibFailure) -> String? {
        let reply: OpaquePointer?
        do {
            reply = try CallDeadline.dbusCall(seconds: timeout, call: "GetNameOwner") { milliseconds, error in
                g_dbus_connection_call_sync(
                    service.connection.pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "GetNameOwner", Variant.tuple([Variant.string(Self.busName)]), nil, G_DBUS_CALL_FLAGS_NONE, milliseconds,
                    nil, &error)
            }
        } catch where error.kind == .serviceMissing {
            return nil
        }
        guard let reply else { return nil }
        defer { g_variant_unref(reply) }
        return Variant.stringChild(reply, at: 0)
    }

    // MARK: Plumbing

    /// One method call on the Secret Service's well-known name; release the reply with
    /// `g_variant_unref`. `parameters` (floating) is consumed.
    func call(
        _ service: ServiceHandle,
        path: String,
        interface: String,
        method: String,
        parameters: OpaquePointer?,
        replyType: String?
    ) throws(GLibFailure) -> OpaquePointer {
        let type = replyType.map { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        // To the daemon the session was opened with, by its unique name, which D-Bus never
        // reuses: after a restart the call fails (and the store reconnects) instead of reaching a
        // new daemon that may have given our session path to someone else's key.
        let destination = service.owner ?? Self.busName
        let reply = try CallDeadline.dbusCall(seconds: timeout, call: method) { milliseconds, error in
            g_dbus_connection_call_sync(
                service.connection.pointer, destination, path, interface, method, parameters, type ?? nil,
                G_DBUS_CALL_FLAGS_NONE, milliseconds, nil, &error)
        }
        guard let reply else { throw GLibFailure(call: method, message: "no reply") }
        return reply
    }

    /// A `(oayays)` secret for the service's session; floating.
    static func encodeSecret(_ service: ServiceHandle, text: String) -> OpaquePointer {
        let value = makeValue(Data(text.utf8), contentType: "text/plain")
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        guard let encoded = secret_service_encode_dbus_secret(service.service, value) else {
            // Only without a session, which `current()` always opens.
            preconditionFailure("secret_service_encode_dbus_secret returned NULL")
        }
        return encoded
    }

    /// A `SecretValue` holding a copy of `bytes`; release with `secret_value_unref`.
    static func makeValue(_ bytes: Data, contentType: String) -> OpaquePointer {
        // An empty secret still needs a valid pointer.
        let value = bytes.isEmpty
            ? secret_value_new("", 0, contentType)
            : bytes.withUnsafeBytes { buffer in
                secret_value_new(buffer.baseAddress?.assumingMemoryBound(to: gchar.self), gssize(buffer.count), contentType)
            }
        guard let value else { preconditionFailure("secret_value_new returned NULL") }
        return value
    }

    /// The bytes of a `SecretValue` (binary-safe).
    static func bytes(of value: OpaquePointer) -> Data {
        var length: gsize = 0
        guard let pointer = secret_value_get(value, &length), length > 0 else { return Data() }
        return Data(bytes: pointer, count: Int(length))
    }
}
