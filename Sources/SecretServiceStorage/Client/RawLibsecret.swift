import CLibsecret
import Foundation
import KeychainStorage

/// The plain libsecret password calls, with the store's attribute names and schema, on the
/// same daemon: the floor to measure ``SecretServiceStore`` against. Secrets are raw bytes (no
/// envelope), so keep its items in groups no store reads.
///
/// Uses libsecret's shared default service on the process's session bus (see
/// ``SecretServiceStore/Configuration/busAddress``).
public final class RawLibsecret: Sendable {
    private let schema: SchemaHandle
    private let timeout: Double

    /// - Parameter busAddress: the bus to use, set before the process's first connection.
    public init(busAddress: String? = nil, timeout: Double = 5) throws(StorageError) {
        try SessionBus.select(address: busAddress)
        self.timeout = timeout
        schema = SchemaHandle()
    }

    /// `secret_password_storev_binary_sync` into the default collection (an upsert).
    public func store(group: String, account: String, service: String, data: Data) throws(StorageError) {
        let attributes = Self.attributes(group: group, account: account, service: service)
        try attempt("secret_password_storev_binary_sync") { () throws(GLibFailure) in
            let value = SecretServiceClient.makeValue(data, contentType: "application/octet-stream")
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            try GLibValues.withStringTable(attributes) { (table) throws(GLibFailure) in
                _ = try CallDeadline.run(seconds: timeout, call: "secret_password_storev_binary_sync") { cancellable, error in
                    secret_password_storev_binary_sync(
                        schema.pointer, table, nil, "\(account) @ \(service)", value, cancellable, &error)
                }
            }
        }
    }

    /// `secret_password_lookupv_binary_sync`: the first unlocked match, or nil.
    public func lookup(group: String, account: String, service: String) throws(StorageError) -> Data? {
        let attributes = Self.attributes(group: group, account: account, service: service)
        return try attempt("secret_password_lookupv_binary_sync") { () throws(GLibFailure) -> Data? in
            let value = try GLibValues.withStringTable(attributes) { (table) throws(GLibFailure) -> OpaquePointer? in
                try CallDeadline.run(seconds: timeout, call: "secret_password_lookupv_binary_sync") { cancellable, error in
                    secret_password_lookupv_binary_sync(schema.pointer, table, cancellable, &error)
                }
            }
            guard let value else { return nil }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            return SecretServiceClient.bytes(of: value)
        }
    }

    /// `secret_password_searchv_sync` with ALL | LOAD_SECRETS: every item of `group`, secrets
    /// loaded in bulk, but one D-Bus proxy per item.
    public func search(group: String) throws(StorageError) -> [Data] {
        let attributes = [ItemAttributes.group: group]
        return try attempt("secret_password_searchv_sync") { () throws(GLibFailure) -> [Data] in
            let list = try GLibValues.withStringTable(attributes) { (table) throws(GLibFailure) -> UnsafeMutablePointer<GList>? in
                try CallDeadline.run(seconds: timeout, call: "secret_password_searchv_sync") { cancellable, error in
                    secret_password_searchv_sync(
                        schema.pointer, table,
                        SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | SECRET_SEARCH_LOAD_SECRETS.rawValue),
                        cancellable, &error)
                }
            }
            defer { g_list_free_full(list) { g_object_unref($0) } }
            var secrets: [Data] = []
            var node = list
            while let current = node {
                // The D-Bus backend returns SecretItems; their secrets were loaded in bulk.
                if let object = current.pointee.data,
                    g_type_check_instance_is_a(object.assumingMemoryBound(to: GTypeInstance.self), secret_item_get_type()) != 0,
                    let value = secret_item_get_secret(object.assumingMemoryBound(to: SecretItem.self))
                {
                    secrets.append(SecretServiceClient.bytes(of: value))
                    secret_value_unref(UnsafeMutableRawPointer(value))
                }
                node = current.pointee.next
            }
            return secrets
        }
    }

    /// `secret_password_clearv_sync` on one key; true when something was deleted.
    @discardableResult
    public func clear(group: String, account: String, service: String) throws(StorageError) -> Bool {
        try clear(Self.attributes(group: group, account: account, service: service))
    }

    /// `secret_password_clearv_sync` on a whole group (item by item inside libsecret).
    @discardableResult
    public func clear(group: String) throws(StorageError) -> Bool {
        try clear([ItemAttributes.group: group])
    }

    private func clear(_ attributes: [String: String]) throws(StorageError) -> Bool {
        try attempt("secret_password_clearv_sync") { () throws(GLibFailure) -> Bool in
            try GLibValues.withStringTable(attributes) { (table) throws(GLibFailure) -> Bool in
                try CallDeadline.run(seconds: timeout, call: "secret_password_clearv_sync") { cancellable, error in
                    secret_password_clearv_sync(schema.pointer, table, cancellable, &error)
                } != 0
            }
        }
    }

    private static func attributes(group: String, account: String, service: String) -> [String: String] {
        [ItemAttributes.group: group, ItemAttributes.account: account, ItemAttributes.service: service]
    }

    /// Runs a call; after a daemon restart (stale session) drops libsecret's cached service and
    /// tries once more.
    private func attempt<T>(_ operation: String, _ body: () throws(GLibFailure) -> T) throws(StorageError) -> T {
        do {
            _ = try SessionBus.connection(timeout: timeout)
            do {
                return try body()
            } catch where [.staleSession, .serviceMissing].contains(error.kind) {
                secret_service_disconnect()
                return try body()
            }
        } catch {
            switch error.kind {
            case .timedOut: throw .timedOut(operation: operation, seconds: timeout)
            case .serviceMissing, .busUnavailable, .connectionClosed: throw .unavailable("\(operation): \(error.message)")
            default: throw .backend(domain: error.domain, code: error.code, message: "\(operation): \(error.message)")
            }
        }
    }
}

/// The libsecret schema of our items (`org.sharedkeychain.GenericPassword`, string attributes),
/// made with the non-variadic `secret_schema_newv`.
///
/// `@unchecked Sendable`: the schema is immutable after creation and only read by libsecret.
private final class SchemaHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<SecretSchema>

    init() {
        let names = [
            ItemAttributes.group, ItemAttributes.account, ItemAttributes.service, ItemAttributes.generic,
            ItemAttributes.type, ItemAttributes.creator, ItemAttributes.addedBy,
        ]
        // Values are SecretSchemaAttributeType as pointers; STRING is 0, so NULL values.
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)
        for name in names {
            g_hash_table_insert(table, g_strdup(name), UnsafeMutableRawPointer(bitPattern: Int(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue)))
        }
        defer { g_hash_table_unref(table) }
        guard let schema = secret_schema_newv(ItemAttributes.schemaName, SECRET_SCHEMA_NONE, table) else {
            preconditionFailure("secret_schema_newv returned NULL")
        }
        pointer = schema
    }

    deinit { secret_schema_unref(pointer) }
}
