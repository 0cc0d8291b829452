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

/// A `SecretService` that subscribes to none of the daemon's signals.
///
/// libsecret's own (`secret_service_get_sync`) is a `GDBusProxy` made with no flags: it
/// subscribes to the service's signals and its `PropertiesChanged`, on the main context of the
/// thread that made it, which in our processes nobody ever runs. gnome-keyring sends
/// `CollectionCreated` and a `PropertiesChanged` carrying every collection's path each time any
/// process makes a collection (a shard), so every process connected to the keyring kept each of
/// those messages queued for good: a third of a 2,000-item restore's heap, and slow growth in
/// every long-running process. The store never reads the proxy's properties or signals (it
/// searches, reads and watches by explicit calls), so this subclass makes the proxy with
/// `DO_NOT_LOAD_PROPERTIES | DO_NOT_CONNECT_SIGNALS`; everything else is libsecret's.
enum QuietSecretService {
    /// A new service with an open session, owned by the caller (not libsecret's shared one).
    static func open(
        _ cancellable: UnsafeMutablePointer<GCancellable>, _ error: inout UnsafeMutablePointer<GError>?
    ) -> UnsafeMutablePointer<SecretService>? {
        secret_service_open_sync(type, nil, SECRET_SERVICE_OPEN_SESSION, cancellable, &error)
    }

    /// The subclass, registered once per process (a Swift static is initialized exactly once).
    static let type: GType = {
        var parent = GTypeQuery()
        g_type_query(secret_service_get_type(), &parent)
        return g_type_register_static_simple(
            secret_service_get_type(), "SharedKeychainQuietSecretService", parent.class_size,
            { klass, _ in
                guard let klass else { return }
                klass.assumingMemoryBound(to: GObjectClass.self).pointee.constructor = { type, count, parameters in
                    QuietSecretService.construct(type, count, parameters)
                }
            },
            parent.instance_size, nil, GTypeFlags(rawValue: 0))
    }()

    /// `SecretService`'s constructor, which sets the proxy's flags to none, then the flags this
    /// type exists for. GObject allows construct-only properties to be set while constructing,
    /// which is how libsecret's constructor sets them too.
    private static func construct(
        _ type: GType, _ count: guint, _ parameters: UnsafeMutablePointer<GObjectConstructParam>?
    ) -> UnsafeMutablePointer<GObject>? {
        let parentClass = g_type_class_peek(secret_service_get_type())?.assumingMemoryBound(to: GObjectClass.self)
        guard let parentConstructor = parentClass?.pointee.constructor,
              let object = parentConstructor(type, count, parameters)
        else { return nil }
        var flags = GValue()
        g_value_init(&flags, g_dbus_proxy_flags_get_type())
        g_value_set_flags(
            &flags, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES.rawValue | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS.rawValue)
        g_object_set_property(object, "g-flags", &flags)
        g_value_unset(&flags)
        return object
    }
}
