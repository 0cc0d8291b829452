"""Plain D-Bus calls to gnome-keyring's Secret Service (no libsecret, no SharedKeychain code) on
the session bus DBUS_SESSION_BUS_ADDRESS names: what the scripts that measure or inspect the
daemon itself share (raw_floor.py, group_census.py, secret_size_cost.py, scale.py).
"""
from gi.repository import Gio, GLib

SERVICE, ROOT = "org.freedesktop.secrets", "/org/freedesktop/secrets"
SERVICE_INTERFACE = "org.freedesktop.Secret.Service"


class SecretBus:
    """The session bus and a plain-text Secret Service session on it."""

    def __init__(self, timeout_ms=120_000):
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.timeout_ms = timeout_ms
        self.session = self.call(ROOT, SERVICE_INTERFACE, "OpenSession",
                                 GLib.Variant("(sv)", ("plain", GLib.Variant("s", ""))), "(vo)").unpack()[1]

    def call(self, path, interface, method, arguments, reply=None):
        """The method's reply, a GLib.Variant (`reply`: its type, when it has one to check)."""
        return self.bus.call_sync(SERVICE, path, interface, method, arguments,
                                  GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, self.timeout_ms, None)
