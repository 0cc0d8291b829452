"""What an access group holds, read from gnome-keyring itself (plain D-Bus calls, no SharedKeychain
code): its items by MSAL item type (the `type` attribute: 2001 access token, 2002 refresh token,
2003 ID token, 2008 family refresh token, 1003 account, 3001 app metadata, 5001 account
metadata, ...) and the entries of each account-metadata item (`account_metadata_map`), with its
size. compare-peers.sh prints it for each prefilled group, to show the group holds what the
sign-ins leave.

    python3 group_census.py GROUP        # on the bus DBUS_SESSION_BUS_ADDRESS names; prints JSON
"""
import json
import struct
import sys

from gi.repository import GLib

from secret_bus import ROOT, SERVICE_INTERFACE, SecretBus


def census(group, batch=500):
    daemon = SecretBus()
    session = daemon.session

    def call(method, arguments, reply):
        return daemon.call(ROOT, SERVICE_INTERFACE, method, arguments, reply)
    unlocked, locked = call("SearchItems", GLib.Variant("(a{ss})", ({"access-group": group},)), "(aoao)").unpack()
    kinds, metadata = {}, []
    for start in range(0, len(unlocked), batch):
        paths = unlocked[start:start + batch]
        reply = call("GetSecrets", GLib.Variant("(aoo)", (paths, session)), None)
        secrets = reply.get_child_value(0)
        for index in range(secrets.n_children()):
            # The secret's value, as bytes without a list of ints in between.
            value = secrets.get_child_value(index).get_child_value(1).get_child_value(2).get_data_as_bytes().get_data()
            header_length = struct.unpack(">I", value[8:12])[0]
            header = json.loads(value[12:12 + header_length])
            kind = str(header.get("type", "none"))
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind == "5001":
                data = value[12 + header_length:]
                metadata.append({"service": header.get("service"), "bytes": len(data),
                                 "entries": len(json.loads(data).get("account_metadata_map", {}))})
    return {"group": group, "items": len(unlocked), "locked": len(locked), "byType": dict(sorted(kinds.items())),
            "accountMetadata": metadata}


if __name__ == "__main__":
    print(json.dumps(census(sys.argv[1])))
