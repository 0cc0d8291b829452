import CLibsecret
import Foundation
import KeychainStorage
import Synchronization

/// The one D-Bus session bus this process talks to.
///
/// libsecret always reaches the Secret Service through GLib's process-wide session-bus
/// connection (`g_bus_get`), which GLib opens from `DBUS_SESSION_BUS_ADDRESS` on first use and
/// then keeps for the life of the process, even after it closes. So a process talks to ONE bus:
/// a store configured with an explicit address sets `DBUS_SESSION_BUS_ADDRESS` before the first
/// connection, and asking for a different bus afterwards is refused.
///
/// GLib also makes that connection kill the process (SIGTERM) when the bus goes away. A private
/// bus can go away under us, so this type opens the connection itself and turns that off before
/// libsecret gets the same shared connection.
enum SessionBus {
    private struct State {
        /// The address this process chose, or nil when it uses the inherited environment.
        var chosenAddress: String?
        var connection: ConnectionHandle?
    }

    private static let state = Mutex(State())

    /// The environment variable GLib reads.
    static let environmentVariable = "DBUS_SESSION_BUS_ADDRESS"

    /// Makes `address` (when given) the process's session bus, unless another bus is in use.
    static func select(address: String?) throws(StorageError) {
        try state.withLock { (state) throws(StorageError) in
            let current = ProcessInfo.processInfo.environment[environmentVariable]
            guard let address, address != current else {
                if let address { state.chosenAddress = address }
                return
            }
            if state.connection != nil || state.chosenAddress != nil {
                throw .unavailable(
                    "this process already talks to the D-Bus session bus at \(current ?? "(none)"); libsecret uses one session bus per process, so a store for \(address) must run in another process"
                )
            }
            // Only before the first connection; GLib reads the variable once.
            setenv(environmentVariable, address, 1)
            state.chosenAddress = address
        }
    }

    /// The address in use, for messages.
    static var address: String {
        ProcessInfo.processInfo.environment[environmentVariable] ?? "(DBUS_SESSION_BUS_ADDRESS is not set)"
    }

    /// The shared session connection, opened with exit-on-close turned off.
    static func connection(timeout: Double) throws(GLibFailure) -> ConnectionHandle {
        if let existing = state.withLock({ $0.connection }) {
            if g_dbus_connection_is_closed(existing.pointer) != 0 {
                throw GLibFailure(
                    call: "connect", message: "the connection to the D-Bus session bus at \(address) is closed",
                    kind: .connectionClosed)
            }
            return existing
        }
        let opened: OpaquePointer?
        do {
            opened = try CallDeadline.run(seconds: timeout, call: "connect to the session bus") { cancellable, error in
                g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, &error)
            }
        } catch {
            throw error.kind == .timedOut ? error : error.with(kind: .busUnavailable)
        }
        guard let opened else {
            throw GLibFailure(call: "connect to the session bus", message: "no connection", kind: .busUnavailable)
        }
        g_dbus_connection_set_exit_on_close(opened, 0)
        let handle = ConnectionHandle(taking: opened)
        return state.withLock { state in
            if let existing = state.connection { return existing }
            state.connection = handle
            return handle
        }
    }
}

/// One reference to a `GDBusConnection`, released on deinit.
///
/// `@unchecked Sendable`: GDBusConnection is documented as thread-safe, and the reference
/// count is atomic.
final class ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }
}
