import CLibsecret
import Foundation

/// A private connection to a D-Bus (not the process's shared session connection), to ask the
/// bus daemon about names and their processes. Closed on deinit.
final class BusProbe {
    let address: String
    private let connection: OpaquePointer
    private let timeout: Double

    /// Connects to `address`; fails when nothing listens there.
    init(address: String, timeout: Double = 5) throws(PrivateKeyringError) {
        self.address = address
        self.timeout = timeout
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let connection: OpaquePointer?
        do {
            connection = try CallDeadline.run(seconds: timeout, call: "connect") { cancellable, error in
                g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, &error)
            }
        } catch {
            throw .busUnreachable(address: address, reason: error.message)
        }
        guard let connection else { throw .busUnreachable(address: address, reason: "no connection") }
        self.connection = connection
    }

    deinit {
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// The unique name owning `name`, or nil when nobody does.
    func owner(of name: String) -> String? {
        guard let reply = try? busCall("GetNameOwner", Variant.string(name), replyType: "(s)") else { return nil }
        defer { g_variant_unref(reply) }
        return Variant.stringChild(reply, at: 0)
    }

    /// The process id of whoever owns `name`.
    func processID(of name: String) -> Int32? {
        guard let reply = try? busCall("GetConnectionUnixProcessID", Variant.string(name), replyType: "(u)") else {
            return nil
        }
        defer { g_variant_unref(reply) }
        guard let value = Variant.firstChild(reply) else { return nil }
        defer { g_variant_unref(value) }
        return Variant.uint32(of: value).map { Int32(bitPattern: $0) }
    }

    /// Waits until someone owns `name`, polling with a growing pause, for at most `seconds`.
    func waitForOwner(of name: String, seconds: Double) throws(PrivateKeyringError) {
        let deadline = Date().addingTimeInterval(seconds)
        var pause: UInt32 = 2_000
        while owner(of: name) == nil {
            if Date() >= deadline { throw .timedOut(what: "\(name) appearing on \(address)", seconds: seconds) }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }

    /// Whether the Secret Service owning `name` answers a call served by its main loop (a
    /// property read) within the probe's timeout. A daemon stopped with SIGSTOP, or hung, still
    /// owns its name on the bus but does not answer.
    func answers(_ name: String) -> Bool {
        let type = g_variant_type_new("(v)")
        defer { g_variant_type_free(type) }
        let reply = try? CallDeadline.run(seconds: timeout, call: "Properties.Get") { cancellable, error in
            g_dbus_connection_call_sync(
                connection, name, "/org/freedesktop/secrets", "org.freedesktop.DBus.Properties", "Get",
                Variant.tuple([Variant.string("org.freedesktop.Secret.Service"), Variant.string("Collections")]),
                type, G_DBUS_CALL_FLAGS_NONE, -1, cancellable, &error)
        }
        guard let reply else { return false }
        g_variant_unref(reply)
        return true
    }

    private func busCall(_ method: String, _ argument: OpaquePointer, replyType: String) throws(GLibFailure) -> OpaquePointer {
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        let reply = try CallDeadline.run(seconds: timeout, call: method) { cancellable, error in
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                Variant.tuple([argument]), type, G_DBUS_CALL_FLAGS_NONE, -1, cancellable, &error)
        }
        guard let reply else { throw GLibFailure(call: method, message: "no reply") }
        return reply
    }
}
