#!/usr/bin/env bash
# SharedKeychain's token workload beside msal-extensions (MSAL Python's libsecret-backed cache:
# one secret blob behind a lock file) and beside the floor, gnome-keyring's raw CreateItem, on
# ONE private keyring, with the same process counts, the same number of sign-ins, and the same
# number of accounts already cached.
#
# For each number of cached accounts, the accounts are signed in once (`token signin --count`, by
# an app of their own, one process: each user's tokens, account and app metadata written as a
# sign-in writes them, the client's account-metadata item once with every entry) into a group the
# load runs then sign new users into (--group, --allow-existing-data): so the floor is measured in the daemon state the runs meet, in the
# same run of this script. The floor: N plain CreateItem calls, 32 (the shard
# size) to a fresh collection, timed one by one, before the runs and again after them, the two
# pooled (so a machine whose speed drifts during the runs moves the floor as it moves ours);
# divided by the items MSAL's keychain writes add
# or change per sign-in (the load's trace counters; its update-then-add makes more write calls,
# but an update that finds nothing writes nothing) it is the sign-in rate the daemon allows.
#
# Prints, per row, both rates, the ratio, every failure as it happened (msal-extensions' start-up
# self-test and its lock timeouts included); then the targets of issues 20 and 32, each with the measured
# ratio and PASS or FAIL; then the same as a Markdown block for the README. Exit status 0 when
# every target passes, 1 when one fails.
#
# msal-extensions adds PEER_SIGNINS accounts a run where more than 1,000 are cached (each addition
# rewrites a blob of tens of megabytes there: 128 would take most of an hour), SIGNINS elsewhere.
#
#   bash scripts/compare-peers.sh                       # 1, 2, 4, 8 processes; 10, 1000 and 10000 accounts; 128 sign-ins a run
#   PROCESSES="1 4" PREFILLS="10 100" SIGNINS=16 FLOOR_CREATES=64 bash scripts/compare-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

processes=(${PROCESSES:-1 2 4 8})
prefills=(${PREFILLS:-10 1000 10000})
signins=${SIGNINS:-128}
peer_signins_big=${PEER_SIGNINS:-16}
floor_creates=${FLOOR_CREATES:-256}
shard=${SHARED_KEYCHAIN_SHARD_CAPACITY:-32}
team=PEERCMP001

# msal-extensions reaches libsecret through PyGObject: Debian's, in a venv that sees it.
need=()
for package in python3-gi gir1.2-secret-1 python3-venv; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || need+=("$package")
done
if [ "${#need[@]}" -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "error: install ${need[*]} (apt-get install ${need[*]})" >&2; exit 1; }
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
venv=.build-interop/peer-venv
if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating $venv with msal-extensions from PyPI" >&2
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check msal-extensions
fi
peer_version=$("$venv/bin/pip" show msal-extensions | sed -n 's/^Version: //p')

if [ -n "${SHARED_KEYCHAIN_BIN:-}" ]; then
    bin="$SHARED_KEYCHAIN_BIN"  # a trial with a build at hand (figures from a debug build mean little)
else
    echo "==> building shared-keychain (release)" >&2
    swift build -c release --product shared-keychain >/dev/null
    bin="$(swift build -c release --show-bin-path)/shared-keychain"
fi

work="$(mktemp -d)"
state="$work/state"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bin" keyring start --state-dir "$state" >/dev/null
bus=$("$bin" keyring status --json --state-dir "$state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bus"])')
peer() { DBUS_SESSION_BUS_ADDRESS="$bus" "$venv/bin/python" scripts/interop/peer_msal_extensions.py "$@"; }
census() { DBUS_SESSION_BUS_ADDRESS="$bus" "$venv/bin/python" scripts/interop/group_census.py "$@"; }

echo "peer: msal-extensions $peer_version; $signins sign-ins (additions) per run, shared among the processes;" \
     "floor: $floor_creates raw CreateItem calls before the runs and $floor_creates after, $shard per fresh collection"
echo
results="$work/results.jsonl"
: >"$results"
printf '%-9s %-9s %-18s %-10s %-11s %-12s %-7s %s\n' PROCESSES ACCOUNTS "SHAREDKEYCHAIN/S" "P50 MS" "OF FLOOR" "MSAL-EXT/S" RATIO FAILURES
for prefill in "${prefills[@]}"; do
    # The cached accounts: imported once, by an app of their own, into the group the runs use.
    group="$team.sharedkeychain-peer-$prefill"
    plist="$work/prefill-$prefill.plist"
    cat >"$plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>keychain-access-groups</key><array><string>$group</string></array></dict></plist>
PLIST
    # Reading a group of thousands of items in one call can pass the default 5 s on a busy machine.
    app=(--app com.sharedkeychain.peer.prefill --team "$team" --entitlements "$plist" --state-dir "$state" --timeout 120s)
    # Signed in by one process of the suite's client, so the group holds what sign-ins leave
    # (tokens, accounts, app metadata, and the client's account metadata with an entry per
    # account), as on a device; that item written once, not rewritten whole by every sign-in
    # (at 10,000 accounts sign-ins one by one took about 40 minutes).
    started=$(date +%s)
    "$bin" token signin --user "cached{n}@peer.example" --count "$prefill" "${app[@]}" \
        --client-id 10ad7e57-0000-4000-8000-00000000a001 --family-id 1 --sharing-group "$group" >/dev/null 2>"$work/prefill.err" \
        || { cat "$work/prefill.err" >&2; exit 1; }
    seconds=$(( $(date +%s) - started ))
    # What the group holds, read from gnome-keyring: the items of every kind a sign-in writes,
    # an account-metadata entry per account.
    census "$group" | python3 -c '
import json, sys
c, prefill, seconds = json.load(sys.stdin), int(sys.argv[1]), sys.argv[2]
names = {"1003": "accounts", "2001": "access tokens", "2002": "refresh tokens", "2003": "ID tokens", "2008": "family refresh tokens",
         "3001": "app metadata", "5001": "account metadata", "none": "team-ID probe"}
kinds = ", ".join("%d %s" % (n, names.get(t, "type " + t)) for t, n in sorted(c["byType"].items(), key=lambda kv: -kv[1]))
meta = "; ".join("%d entries in %.1f kB" % (m["entries"], m["bytes"] / 1000) for m in c["accountMetadata"]) or "none"
print("          prefill of %d accounts: %s s; the group holds %d items: %s; the client account metadata: %s" % (
    prefill, seconds, c["items"], kinds, meta))' "$prefill" "$seconds"
    peer_signins=$signins
    [ "$prefill" -le 1000 ] || peer_signins=$peer_signins_big
    # The floor is measured before and after the runs in this daemon state, and the two pooled:
    # a machine that slows down or speeds up during the runs weighs on the floor as on ours.
    peer floor --creates "$floor_creates" --shard "$shard" >"$work/floor-before.json"
    for count in "${processes[@]}"; do
        per_app=$((signins / count))
        "$bin" load --state-dir "$state" --workload token --mix signin=100 --apps "$count" --operations "$per_app" \
            --warmup 0 --items $((per_app * 20)) --team "$team" --group "$group" --allow-existing-data --timeout 120s --json \
            >"$work/ours-$count.json" 2>"$work/load-$count.err" || true
        mkdir -p "$work/peer-$prefill-$count"
        peer run --processes "$count" --additions "$peer_signins" --prefill "$prefill" --work "$work/peer-$prefill-$count" \
            >"$work/theirs-$count.json" 2>"$work/peer-stderr-$count"
        printf '.' >&2
    done
    echo >&2
    peer floor --creates "$floor_creates" --shard "$shard" >"$work/floor-after.json"
    # The same calls from as many raw writers as the most processes: the daemon's and the
    # machine's own drop under contention, which ours cannot beat.
    writers=$(printf '%s\n' "${processes[@]}" | sort -n | tail -1)
    peer floor --creates "$floor_creates" --shard "$shard" --writers "$writers" >"$work/floor-writers.json"
    floor=$(python3 - "$work/floor-before.json" "$work/floor-after.json" "$work/floor-writers.json" <<'PY'
import json, sys
halves = [json.load(open(path)) for path in sys.argv[1:3]]
writers = json.load(open(sys.argv[3]))
timings = sorted(t for half in halves for t in half["timingsMs"])
seconds = sum(half["seconds"] for half in halves)
print(json.dumps({"creates": len(timings), "rate": round(len(timings) / seconds, 2), "p50ms": round(timings[len(timings) // 2], 3),
                  "halves": [{"rate": half["rate"], "p50ms": half["p50ms"]} for half in halves],
                  "writers": writers.get("writers", 1), "writersRate": writers["rate"], "writersP50ms": writers["p50ms"],
                  # Against one writer's rate measured just before them, the after-run half.
                  "writersRatio": round(writers["rate"] / halves[1]["rate"], 3) if halves[1]["rate"] else 0}))
PY
)
    for count in "${processes[@]}"; do
        ours=$(cat "$work/ours-$count.json")
        [ -n "$ours" ] || sed 's/^/          (ours: /; s/$/)/' "$work/load-$count.err"
        theirs=$(cat "$work/theirs-$count.json")
        python3 - "$count" "$prefill" "$ours" "$theirs" "$floor" "$results" <<'PY'
import json, sys
count, prefill, ours, theirs, floor, results = sys.argv[1:7]
theirs, floor = json.loads(theirs), json.loads(floor)
row = {"processes": int(count), "accounts": int(prefill), "floorRate": floor["rate"], "floorP50": floor["p50ms"],
       "floorWriters": floor["writers"], "floorWritersRatio": floor["writersRatio"],
       "peerRate": theirs["rate"], "peerAdded": theirs["added"], "peerAdditions": theirs["additions"], "peerFailures": theirs["failures"]}
try:
    report = json.loads(ours)
    signin = next(o for o in report["operations"] if o["operation"] == "signin")
    calls = signin.get("keychainCallsPerOperation") or {}
    row.update(rate=signin["throughput"], p50=signin["p50"] / 1000, passed=report.get("passed", None),
               unexpected=report["unexpectedErrors"], lost=report["consistency"]["lostSignIns"],
               metadataLost=report["consistency"].get("accountMetadataEntriesLost", 0),
               partialSaves=report.get("partialSaves", 0),
               writeCalls=sum(calls.get(f, 0) for f in ("SecItemUpdate", "SecItemAdd", "SecItemDelete")),
               writes=signin.get("itemsWrittenPerOperation") or 0)
    row["failed"] = row["unexpected"] + row["lost"] + report["consistency"]["resurrectedAccounts"] > 0 or signin["count"] == 0
except (ValueError, KeyError, StopIteration):
    row.update(rate=0, p50=0, unexpected=None, lost=None, metadataLost=0, partialSaves=0, writes=0, writeCalls=0, failed=True)
floor_signins = row["floorRate"] / row["writes"] if row["writes"] else 0
ours_text = "%.1f" % row["rate"] if not row["failed"] or row["rate"] else "-"
failures = "ours %s; msal-extensions %d of %d added%s" % (
    "the run failed" if row["unexpected"] is None else "%d lost, %d unexpected errors (%d metadata entries lost to MSAL's read-modify-write, %d partial saves ended by another app's add)" % (
        row["lost"], row["unexpected"], row["metadataLost"], row["partialSaves"]),
    theirs["added"], theirs["additions"], "".join(", %s %d" % item for item in sorted(theirs["failures"].items())))
print("%-9s %-9s %-18s %-10s %-11s %-12s %-7s %s" % (
    count, prefill, ours_text, "%.1f" % row["p50"], "%.2f" % (row["rate"] / floor_signins) if floor_signins else "-",
    "%.1f" % theirs["rate"], "%.1fx" % (row["rate"] / theirs["rate"]) if theirs["rate"] else "-", failures))
with open(results, "a") as out:
    out.write(json.dumps(row) + "\n")
PY
        warnings=$(grep -c "CRITICAL" "$work/peer-stderr-$count" || true)
        [ "$warnings" -eq 0 ] || echo "          (msal-extensions' processes printed $warnings GLib CRITICAL warnings on standard error)"
    done
    echo "          floor at $prefill accounts: $(python3 -c 'import json,sys; f=json.loads(sys.argv[1]); h=f["halves"]; print("%s CreateItem/s, p50 %s ms (%d calls: before the runs %s/s, p50 %s ms; after %s/s, p50 %s ms); %d raw writers side by side: %s/s, p50 %s ms (%.2fx of the after-run rate of one)" % (f["rate"], f["p50ms"], f["creates"], h[0]["rate"], h[0]["p50ms"], h[1]["rate"], h[1]["p50ms"], f["writers"], f["writersRate"], f["writersP50ms"], f["writersRatio"]))' "$floor")"
    # The last group goes with the keyring (the trap).
    [ "$prefill" = "${prefills[${#prefills[@]}-1]}" ] \
        || "$bin" item delete "${app[@]}" --group "$group" --all >/dev/null 2>"$work/delete.err" || { cat "$work/delete.err" >&2; exit 1; }
done
echo
python3 - "$results" "$(nproc)" "${prefills[@]}" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
cores, prefills = sys.argv[2], [int(p) for p in sys.argv[3:]]
low, high = prefills[0], prefills[-1]
def row(processes, accounts):
    return next((r for r in rows if r["processes"] == processes and r["accounts"] == accounts), None)
targets = []
def target(name, ratio, bound, passed):
    targets.append((name, ratio, bound, passed))
for n in (4, 8):
    r = row(n, low)
    if r:
        floor = r["floorRate"] / r["writes"] if r["writes"] else 0
        ratio = r["rate"] / floor if floor else 0
        target("new-user sign-ins/s, %d processes, %d accounts, vs the floor (%.0f CreateItem/s / %.1f items written per sign-in"
               " (in %.1f write calls) = %.1f/s)" % (n, low, r["floorRate"], r["writes"], r["writeCalls"], floor),
               "%.2fx" % ratio, ">= 0.8x", ratio >= 0.8)
# Issue 20 asked it at 1,000 accounts, issue 32 at 10,000: every row past the first.
for accounts in prefills[1:]:
    for n in (1, 2):
        r = row(n, accounts)
        if r:
            ratio = r["rate"] / r["peerRate"] if r["peerRate"] else float("inf")
            target("sign-ins/s, %d process%s, %d accounts, vs msal-extensions" % (n, "" if n == 1 else "es", accounts),
                   "%.1fx" % ratio, ">= 10x", ratio >= 10)
for n in (4, 8):
    r = row(n, high)
    if r:
        target("no failure of ours, %d processes, %d accounts" % (n, high), "%s lost, %s errors" % (r["lost"], r["unexpected"]),
               "0", not r["failed"])
for smaller, larger in zip(prefills, prefills[1:]):
    ours_low, ours_high = row(1, smaller), row(1, larger)
    if ours_low and ours_high and not (ours_low["p50"] and ours_high["p50"] and ours_low["floorP50"]):
        # A run of ours that failed has no p50: no growth to compare, never a pass.
        target("growth of our sign-in p50 (1 process) from %d to %d accounts vs the floor's" % (smaller, larger),
               "no p50", "<= 1.15x", False)
    elif ours_low and ours_high:
        ours_growth = ours_high["p50"] / ours_low["p50"]
        floor_growth = ours_high["floorP50"] / ours_low["floorP50"]
        ratio = ours_growth / floor_growth
        target("growth of our sign-in p50 (1 process) from %d to %d accounts (%.2fx) vs the floor's (%.2fx)" % (smaller, larger, ours_growth, floor_growth),
               "%.2fx" % ratio, "<= 1.15x", ratio <= 1.15)
# Issue 32: contention at size, 8 processes against 1.
for accounts in prefills[1:]:
    one, eight = row(1, accounts), row(8, accounts)
    if one and eight and not one["rate"]:
        target("sign-ins/s, 8 processes vs 1, %d accounts (the 1-process run failed)" % accounts, "-", ">= 0.9x", False)
    elif one and eight:
        ratio = eight["rate"] / one["rate"]
        target("sign-ins/s, 8 processes vs 1, %d accounts (%.1f/s vs %.1f/s; the floor's %d raw writers vs 1: %.2fx)" % (
                   accounts, eight["rate"], one["rate"], eight["floorWriters"], eight["floorWritersRatio"]),
               "%.2fx" % ratio, ">= 0.9x", ratio >= 0.9)
lost = sum(r["lost"] or 0 for r in rows)
unexpected = sum(r["unexpected"] or 0 for r in rows)
broken = sum(1 for r in rows if r["unexpected"] is None)
target("lost sign-ins and unexpected errors, every run of ours", "%d lost, %d errors%s" % (
    lost, unexpected, ", %d runs failed" % broken if broken else ""), "0", lost == 0 and unexpected == 0 and broken == 0)
metadata = sum(r["metadataLost"] for r in rows)
print("TARGETS (issues 20 and 32), measured in this run on %s cores:" % cores)
for name, ratio, bound, passed in targets:
    print("  %-4s %-12s (target %s)  %s" % ("PASS" if passed else "FAIL", ratio, bound, name))
partial = sum(r["partialSaves"] for r in rows)
print("  (expected on a device, not a failure: %d account-metadata entries lost to MSAL's read-modify-write, %d partial saves: another app's add (-25299) ended a response's save, MSAL's saveData)" % (metadata, partial))
print()
print("README block:")
print()
print("| processes | accounts cached | SharedKeychain sign-ins/s | p50 ms | of the floor | msal-extensions/s | ratio |")
print("|---|---|---|---|---|---|---|")
for r in sorted(rows, key=lambda r: (r["accounts"], r["processes"])):
    floor = r["floorRate"] / r["writes"] if r["writes"] else 0
    print("| %d | %d | %.1f | %.1f | %s | %.1f | %s |" % (
        r["processes"], r["accounts"], r["rate"], r["p50"], "%.2f" % (r["rate"] / floor) if floor else "-", r["peerRate"],
        "%.1fx" % (r["rate"] / r["peerRate"]) if r["peerRate"] else "-"))
print()
for name, ratio, bound, passed in targets:
    print("- %s: %s (target %s) %s" % (name, ratio, bound, "PASS" if passed else "FAIL"))
sys.exit(0 if all(t[3] for t in targets) else 1)
PY
