"""What gnome-keyring charges for one item by the size of its secret: the cost of MSAL's
account-metadata item (one per client, rewritten whole on every token response) as it grows.

For each size: one CreateItem, five Item.SetSecret calls of that size (the median printed) and
one Service.GetSecrets, with plain D-Bus calls in a collection of its own, deleted after.

    python3 secret_size_cost.py 1500 400000 4000000   # on the bus DBUS_SESSION_BUS_ADDRESS names
"""
import sys
import time

from gi.repository import GLib

from secret_bus import ROOT, SecretBus


def main(sizes):
    daemon = SecretBus()
    call, session = daemon.call, daemon.session

    def byte_array(data):  # without a Python list of ints in between (seconds for a megabyte)
        return GLib.Variant.new_from_bytes(GLib.VariantType("ay"), GLib.Bytes.new(data), True)

    master = GLib.Variant("(a{sv}(oayays))", ({"org.freedesktop.Secret.Collection.Label": GLib.Variant("s", "secret-size-cost")},
                                              (session, b"", b"x", "text/plain")))
    collection = call(ROOT, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "CreateWithMasterPassword",
                      master, "(o)").unpack()[0]

    def secret(data):
        return GLib.Variant.new_tuple(GLib.Variant.new_object_path(session), byte_array(b""), byte_array(data),
                                      GLib.Variant("s", "application/octet-stream"))

    def timed(function):
        start = time.perf_counter()
        result = function()
        return result, 1000 * (time.perf_counter() - start)

    try:
        for size in sizes:
            properties = GLib.Variant("a{sv}", {"org.freedesktop.Secret.Item.Label": GLib.Variant("s", "size %d" % size),
                                                "org.freedesktop.Secret.Item.Attributes": GLib.Variant("a{ss}", {"size": str(size)})})
            reply, create = timed(lambda: call(collection, "org.freedesktop.Secret.Collection", "CreateItem",
                                               GLib.Variant.new_tuple(properties, secret(b"y" * size), GLib.Variant("b", False)), "(oo)"))
            item = reply.unpack()[0]
            sets = sorted(timed(lambda: call(item, "org.freedesktop.Secret.Item", "SetSecret",
                                             GLib.Variant.new_tuple(secret(b"z" * size))))[1] for _ in range(5))
            _, get = timed(lambda: call(ROOT, "org.freedesktop.Secret.Service", "GetSecrets", GLib.Variant("(aoo)", ([item], session))))
            print("%9d bytes: CreateItem %.1f ms, SetSecret p50 %.1f ms, GetSecrets %.1f ms" % (size, create, sets[2], get), flush=True)
    finally:
        call(collection, "org.freedesktop.Secret.Collection", "Delete", None, "(o)")


if __name__ == "__main__":
    main([int(size) for size in sys.argv[1:]] or [1500, 400_000, 4_000_000])
