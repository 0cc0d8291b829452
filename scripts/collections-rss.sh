#!/usr/bin/env bash
# The resident memory of long-running processes while ANOTHER process makes collections (issue
# 32, point 6): gnome-keyring tells every connected process of each collection made
# (`CollectionCreated`, and a `PropertiesChanged` listing every collection). One `load --threads`
# per binary given runs on one private keyring (a fresh state directory; the user's keyring is
# never touched) while a third process restores snapshots into new groups, a collection per 32
# items, and VmRSS of each load process is printed after each restore.
#
#   bash scripts/collections-rss.sh BINARY [BINARY...]     # e.g. a build before a change and after
#
# Settings (environment): RESTORES (10 restores), ITEMS (320 items each, 10 collections).
# A process that keeps those messages grows with every collection; one that does not stays flat.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$#" -ge 1 ] || { echo "usage: bash scripts/collections-rss.sh BINARY [BINARY...]" >&2; exit 2; }
restores="${RESTORES:-10}"
items="${ITEMS:-320}"
bins=("$@")
for bin in "${bins[@]}"; do [ -x "$bin" ] || { echo "error: $bin is not an executable" >&2; exit 2; }; done

work="$(mktemp -d)"
state="$work/state"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    "${bins[0]}" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# The snapshots the third process restores: one group each.
/usr/bin/env python3 - "$work" "$restores" "$items" <<'EOF'
import base64, json, os, sys
work, restores, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for index in range(restores):
    group = "ABCDE12345.com.example.collections%d" % index
    items = [{"accessibility": "whenUnlocked", "account": "user%05d@contoso.com" % i, "creationDate": 817552881.0 + i,
              "data": base64.b64encode(b"x" * 200).decode(), "group": group, "modificationDate": 817552881.0 + i,
              "provenance": {"addedBy": "com.example.app"}, "service": "svc", "synchronizable": False, "version": 1}
             for i in range(size)]
    with open(os.path.join(work, "snapshot%d.json" % index), "w") as file:
        json.dump({"format": 1, "group": group, "items": items, "takenAt": 817552882.0}, file)
EOF

"${bins[0]}" keyring start --state-dir "$state" >/dev/null
# Long enough to outlast the restores; stopped at exit.
for bin in "${bins[@]}"; do
    "$bin" load --state-dir "$state" --apps 1 --threads --duration 1h --warmup 0s --rate 5 --items 5 >/dev/null 2>&1 &
    pids+=("$!")
done
sleep 5
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
header="collections_made"
for bin in "${bins[@]}"; do header+=" $(basename "$(dirname "$bin")")/$(basename "$bin")_kB"; done
echo "$header"
line() {
    local out="$1"
    for pid in "${pids[@]}"; do out+=" $(rss "$pid")"; done
    echo "$out"
}
line 0
made=0
for index in $(seq 0 $((restores - 1))); do
    "${bins[0]}" restore --admin --input "$work/snapshot$index.json" --state-dir "$state" >/dev/null 2>"$work/restore.err" \
        || { cat "$work/restore.err" >&2; exit 1; }
    made=$((made + (items + 31) / 32))
    line "$made"
done
