"""gnome-keyring's own CreateItem rate: the floor the load scripts measure the emulator against.

`floor(creates, shard)` creates `creates` items with plain D-Bus calls (no libsecret), `shard`
to a fresh collection (as SharedKeychain fills a group's shards), each call timed on its own,
then deletes the collections; `startedAt` and `endedAt` (epoch seconds) span the calls, for writers
run side by side. Used by scripts/interop/peer_msal_extensions.py (compare-peers.sh)
and scripts/scale.py, on the session bus DBUS_SESSION_BUS_ADDRESS names.
"""
import os
import time

from gi.repository import GLib

from secret_bus import ROOT, SecretBus


def floor(creates, shard, secret_size=1500):
    daemon = SecretBus(timeout_ms=60_000)
    session = daemon.session

    def call(path, interface, method, arguments, reply=None):
        return daemon.call(path, interface, method, arguments, reply).unpack()
    run_id = "%d-%d" % (os.getpid(), int(time.time()))
    secret = b"x" * secret_size
    timings = []
    collections = []
    started_at = ended_at = time.time()
    try:
        while len(timings) < creates:
            label = "sharedkeychain-floor-%s-%d" % (run_id, len(collections))
            master = (session, b"", b"floor", "text/plain")
            collection = call(ROOT, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "CreateWithMasterPassword",
                              GLib.Variant("(a{sv}(oayays))", ({"org.freedesktop.Secret.Collection.Label": GLib.Variant("s", label)},
                                                                master)), "(o)")[0]
            collections.append(collection)
            for index in range(min(shard, creates - len(timings))):
                attributes = {"xdg:schema": "org.sharedkeychain.floor", "access-group": "FLOORTEAM1.floor." + run_id,
                              "account": "%08d-%s-login.microsoftonline.com" % (len(timings), run_id),
                              "service": "refreshtoken-1--", "generic": "refreshtoken-1-", "type": "2002",
                              "creator": "com.sharedkeychain.floor", "accessible": "cku", "synchronizable": "0",
                              "class": "genp"}
                properties = {"org.freedesktop.Secret.Item.Label": GLib.Variant("s", "floor %d" % index),
                              "org.freedesktop.Secret.Item.Attributes": GLib.Variant("a{ss}", attributes)}
                arguments = GLib.Variant("(a{sv}(oayays)b)", (properties, (session, b"", secret, "application/octet-stream"), False))
                if not timings:
                    started_at = time.time()
                start = time.perf_counter()
                call(collection, "org.freedesktop.Secret.Collection", "CreateItem", arguments, "(oo)")
                timings.append(time.perf_counter() - start)
                ended_at = time.time()
    finally:
        for collection in collections:
            try:
                call(collection, "org.freedesktop.Secret.Collection", "Delete", None, "(o)")
            except GLib.Error:
                pass
    total = sum(timings)
    ordered = sorted(timings)
    return {"floor": "CreateItem", "creates": len(timings), "shard": shard, "seconds": round(total, 3),
            "rate": round(len(timings) / total, 2) if total > 0 else 0,
            "p50ms": round(1000 * ordered[len(ordered) // 2], 3) if ordered else 0,
            "startedAt": started_at, "endedAt": ended_at, "timingsMs": [round(1000 * t, 4) for t in timings]}
