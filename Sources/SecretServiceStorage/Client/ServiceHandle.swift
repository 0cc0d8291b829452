import CLibsecret

/// One reference to a connected libsecret `SecretService` (with an open session), released on
/// deinit, plus the bus connection it uses and the daemon instance it talked to.
///
/// `@unchecked Sendable`: libsecret documents that one `SecretService` may be shared by many
/// threads (every `*_sync` call runs its own main context), and GObject reference counting is
/// atomic. The other properties are immutable.
final class ServiceHandle: @unchecked Sendable {
    let service: UnsafeMutablePointer<SecretService>
    let connection: ConnectionHandle
    /// The unique bus name of the daemon when we connected (`:1.42`): a different owner later
    /// means the daemon restarted, and every lock and session we knew of is gone.
    let owner: String?

    init(taking service: UnsafeMutablePointer<SecretService>, connection: ConnectionHandle) {
        self.service = service
        self.connection = connection
        let proxy = UnsafeMutableRawPointer(service).assumingMemoryBound(to: GDBusProxy.self)
        if let owner = g_dbus_proxy_get_name_owner(proxy) {
            self.owner = String(cString: owner)
            g_free(owner)
        } else {
            self.owner = nil
        }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(service)) }
}
