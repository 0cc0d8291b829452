#!/usr/bin/env bash
# One-item calls and whole-group operations in a small and a big group, side by side in one run
# on a private keyring (issue 32): builds release, fills each group with one `restore`, times
# RUNS separate CLI processes of `item get/add/update/delete` in each group, then `snapshot` and
# `item list --json` at default settings, each beside gnome-keyring's own rate for the same
# calls in the same daemon state, and prints the tables (scripts/scale.py).
#
#   bash scripts/scale.sh                          # 10 and 10,000 items, 15 runs of each call
#   SIZES="10 1000" RUNS=5 bash scripts/scale.sh
#   SHARED_KEYCHAIN_BIN=.build/release/shared-keychain bash scripts/scale.sh   # a build at hand
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# The raw daemon calls go through PyGObject: Debian's.
if ! dpkg-query -W -f='${Status}' python3-gi 2>/dev/null | grep -q "install ok installed"; then
    [ "$(id -u)" -eq 0 ] || { echo "error: install python3-gi (apt-get install python3-gi)" >&2; exit 1; }
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-gi >/dev/null
fi

if [ -n "${SHARED_KEYCHAIN_BIN:-}" ]; then
    bin="$SHARED_KEYCHAIN_BIN"
else
    echo "==> building shared-keychain (release)" >&2
    swift build -c release --product shared-keychain >/dev/null
    bin="$(swift build -c release --show-bin-path)/shared-keychain"
fi

work="$(mktemp -d)"
state="$work/state"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bin" keyring start --state-dir "$state" >/dev/null
bus=$("$bin" keyring status --json --state-dir "$state" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["bus"])')
DBUS_SESSION_BUS_ADDRESS="$bus" /usr/bin/python3 scripts/scale.py "$bin" "$state" "$work"
