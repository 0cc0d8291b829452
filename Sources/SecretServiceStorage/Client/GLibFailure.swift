import CLibsecret

/// A GError copied into Swift (and freed), with what the store needs to decide how to react.
struct GLibFailure: Error, Sendable, CustomStringConvertible {
    /// How the store reacts to a failure.
    enum Kind: Sendable, Equatable {
        /// Our deadline cancelled the call, or D-Bus gave up waiting.
        case timedOut
        /// The daemon restarted: the libsecret session (or the proxy's idea of the daemon) is stale.
        case staleSession
        /// The connection to the bus is closed.
        case connectionClosed
        /// Nothing owns `org.freedesktop.secrets` on the bus.
        case serviceMissing
        /// No D-Bus session bus could be reached at all.
        case busUnavailable
        /// The collection holding the object is locked.
        case locked
        /// The object path does not exist (any more).
        case noSuchObject
        case other
    }

    /// The D-Bus method (or libsecret step) that failed, for messages.
    var call: String
    let domain: String
    let code: Int
    let message: String
    /// The D-Bus error name, when GDBus still knew it (libsecret strips some).
    let remoteName: String?
    let kind: Kind

    /// Copies and frees `error`. `cancelledByDeadline` says our timer fired during the call.
    init(taking error: UnsafeMutablePointer<GError>, call: String, cancelledByDeadline: Bool) {
        self.call = call
        let domainQuark = error.pointee.domain
        domain = g_quark_to_string(domainQuark).map { String(cString: $0) } ?? "unknown"
        code = Int(error.pointee.code)
        message = error.pointee.message.map { String(cString: $0) } ?? ""
        if let remote = g_dbus_error_get_remote_error(error) {
            remoteName = String(cString: remote)
            g_free(remote)
        } else {
            remoteName = nil
        }
        kind = Self.classify(
            domain: domainQuark, code: error.pointee.code, message: message, remoteName: remoteName,
            cancelledByDeadline: cancelledByDeadline)
        g_error_free(error)
    }

    /// A failure made up by this module (a reply that was not what the protocol promises).
    init(call: String, message: String, kind: Kind = .other) {
        self.call = call
        domain = "shared-keychain"
        code = 0
        self.message = message
        remoteName = nil
        self.kind = kind
    }

    var description: String { "\(call): \(domain) error \(code): \(message)" }

    /// The same failure, reclassified.
    func with(kind: Kind) -> GLibFailure {
        GLibFailure(call: call, domain: domain, code: code, message: message, remoteName: remoteName, kind: kind)
    }

    private init(call: String, domain: String, code: Int, message: String, remoteName: String?, kind: Kind) {
        self.call = call
        self.domain = domain
        self.code = code
        self.message = message
        self.remoteName = remoteName
        self.kind = kind
    }

    private static func classify(
        domain: GQuark, code: gint, message: String, remoteName: String?, cancelledByDeadline: Bool
    ) -> Kind {
        if cancelledByDeadline { return .timedOut }
        switch remoteName {
        case "org.freedesktop.Secret.Error.NoSession": return .staleSession
        case "org.freedesktop.Secret.Error.IsLocked": return .locked
        case "org.freedesktop.Secret.Error.NoSuchObject",
            "org.freedesktop.DBus.Error.UnknownObject",
            "org.freedesktop.DBus.Error.UnknownMethod",
            "org.freedesktop.DBus.Error.UnknownInterface":
            return .noSuchObject
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .serviceMissing
        case "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
            return .timedOut
        case "org.freedesktop.DBus.Error.NoReply":
            // The daemon went away before answering: a restarted one may answer the retry.
            return .staleSession
        default: break
        }
        // gnome-keyring reports a session of a previous daemon run like this; libsecret strips the
        // D-Bus error name, so the message is all that is left.
        if message.contains("session") && message.contains("does not exist") { return .staleSession }
        if domain == secret_error_get_quark() {
            switch code {
            case gint(SECRET_ERROR_IS_LOCKED.rawValue): return .locked
            case gint(SECRET_ERROR_NO_SUCH_OBJECT.rawValue): return .noSuchObject
            default: return .other
            }
        }
        if domain == g_io_error_quark() {
            switch code {
            case gint(G_IO_ERROR_CLOSED.rawValue), gint(G_IO_ERROR_BROKEN_PIPE.rawValue):
                return .connectionClosed
            case gint(G_IO_ERROR_TIMED_OUT.rawValue): return .timedOut
            default: return .other
            }
        }
        if domain == g_dbus_error_quark() {
            switch code {
            case gint(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue), gint(G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue):
                return .serviceMissing
            case gint(G_DBUS_ERROR_TIMEOUT.rawValue), gint(G_DBUS_ERROR_TIMED_OUT.rawValue):
                return .timedOut
            case gint(G_DBUS_ERROR_NO_REPLY.rawValue): return .staleSession
            case gint(G_DBUS_ERROR_DISCONNECTED.rawValue): return .connectionClosed
            case gint(G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue), gint(G_DBUS_ERROR_UNKNOWN_METHOD.rawValue),
                gint(G_DBUS_ERROR_UNKNOWN_INTERFACE.rawValue):
                return .noSuchObject
            default: return .other
            }
        }
        return .other
    }
}
