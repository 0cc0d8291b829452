"""The storage contract from Python's secretstorage (PyPI), the way another Secret Service client
uses it: find an item SharedKeychain wrote by its attributes and unwrap its secret as the
documentation shows; write an item with the contract's attributes for SharedKeychain to adopt;
read back the plain secret after SharedKeychain updated it.

Usage: secretstorage_contract.py read GROUP ACCOUNT EXPECTED
       secretstorage_contract.py write GROUP ACCOUNT SERVICE SECRET
       secretstorage_contract.py plain GROUP ACCOUNT EXPECTED
Talks to the bus in DBUS_SESSION_BUS_ADDRESS (the private keyring's)."""
import sys

import secretstorage


def find(connection, group, account):
    items = list(secretstorage.search_items(connection, {"access-group": group, "account": account}))
    if len(items) != 1:
        sys.exit(f"expected one item for account {account!r} in {group!r}, found {len(items)}")
    return items[0]


def main():
    command, group, account, *rest = sys.argv[1:]
    connection = secretstorage.dbus_init()
    if command == "read":
        raw = find(connection, group, account).get_secret()
        # The documented unwrap: the data follows the magic, the header length and the header.
        data = raw[12 + int.from_bytes(raw[8:12], "big"):] if raw[:8] == b"SKCITEM1" else raw
        if data != rest[0].encode():
            sys.exit(f"unwrapped {data!r}, expected {rest[0]!r}")
        print(f"secretstorage read {account!r}: {len(raw)}-byte envelope, data {len(data)} bytes, as expected")
    elif command == "write":
        service, secret = rest
        collection = secretstorage.get_default_collection(connection)
        attributes = {"xdg:schema": "org.sharedkeychain.GenericPassword", "access-group": group, "account": account, "service": service}
        collection.create_item(f"{account} from secretstorage", attributes, secret.encode())
        print(f"secretstorage wrote {account!r} into the default collection")
    elif command == "plain":
        secret = find(connection, group, account).get_secret()
        if secret != rest[0].encode():
            sys.exit(f"read {secret!r}, expected the plain {rest[0]!r}")
        print(f"secretstorage read {account!r} as plain data after SharedKeychain's update, as expected")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
