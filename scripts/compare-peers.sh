#!/usr/bin/env bash
# SharedKeychain's token workload beside msal-extensions (MSAL Python's libsecret-backed cache:
# one secret blob behind a lock file), on ONE private keyring, with the same process counts, the
# same number of sign-ins, and the same number of accounts already cached. Prints both rates,
# the ratio, and every failure as it happened (msal-extensions' start-up self-test and its lock
# timeouts included), plus libsecret's raw store rate and the ceiling it sets for a sign-in.
#
#   bash scripts/compare-peers.sh                      # 1, 4, 8 processes; 10 and 1000 accounts
#   PROCESSES="1 2" PREFILLS=10 SIGNINS=32 bash scripts/compare-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

processes=(${PROCESSES:-1 2 4 8})
prefills=(${PREFILLS:-10 1000})
signins=${SIGNINS:-64}

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

echo "==> building shared-keychain (release)" >&2
swift build -c release --product shared-keychain >/dev/null
bin="$(swift build -c release --show-bin-path)/shared-keychain"

work="$(mktemp -d)"
state="$work/state"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bin" keyring start --state-dir "$state" >/dev/null
bus=$("$bin" keyring status --json --state-dir "$state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bus"])')
peer() { DBUS_SESSION_BUS_ADDRESS="$bus" "$venv/bin/python" scripts/interop/peer_msal_extensions.py "$@"; }

raw=$(peer raw --count 50)
raw_rate=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["rate"])' "$raw")
# A new user's sign-in writes 6 items (7 for the app's very first): access, refresh, family
# refresh and ID token, account record, sign-in state (and the app's metadata).
writes=6
ceiling=$(python3 -c "print(round($raw_rate / $writes, 1))")
echo "libsecret raw store rate (default collection, 1.2 KB secrets): $raw_rate/s; a new sign-in writes $writes items:" \
     "ceiling $ceiling sign-ins/s"
echo "peer: msal-extensions $peer_version; $signins sign-ins (additions) per run, shared among the processes"
echo
printf '%-9s %-9s %-18s %-11s %-12s %-7s %s\n' PROCESSES ACCOUNTS "SHAREDKEYCHAIN/S" "OF CEILING" "MSAL-EXT/S" RATIO FAILURES
for prefill in "${prefills[@]}"; do
    for count in "${processes[@]}"; do
        per_app=$((signins / count))
        ours=$("$bin" load --state-dir "$state" --workload token --mix signin=100 --apps "$count" --operations "$per_app" \
            --warmup 0 --items $((per_app * 20)) --prefill-accounts "$prefill" --json 2>/dev/null || true)
        mkdir -p "$work/peer-$prefill-$count"
        theirs=$(peer run --processes "$count" --additions "$signins" --prefill "$prefill" --work "$work/peer-$prefill-$count" \
            2>"$work/peer-stderr")
        python3 - "$count" "$prefill" "$ours" "$theirs" "$ceiling" <<'PY'
import json, sys
count, prefill, ours, theirs = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
ceiling = float(sys.argv[5])
try:
    report = json.loads(ours)
    signin = next(o for o in report["operations"] if o["operation"] == "signin")
    rate = signin["throughput"]
    ours_failures = report["unexpectedErrors"] + report["consistency"]["lostSignIns"]
    ours_text = "%.1f" % rate
except (ValueError, KeyError, StopIteration):
    rate, ours_failures, ours_text = 0, "the run failed", "-"
ratio = "%.1fx" % (rate / theirs["rate"]) if theirs["rate"] else "-"
failures = "ours %s; msal-extensions %d of %d added%s" % (
    ours_failures, theirs["added"], theirs["additions"],
    "".join(", %s %d" % item for item in sorted(theirs["failures"].items())))
of_ceiling = "%.2f" % (rate / ceiling) if ceiling else "-"
print("%-9s %-9s %-18s %-11s %-12s %-7s %s" % (count, prefill, ours_text, of_ceiling, "%.1f" % theirs["rate"], ratio, failures))
PY
        warnings=$(grep -c "CRITICAL" "$work/peer-stderr" || true)
        [ "$warnings" -eq 0 ] || echo "          (msal-extensions' processes printed $warnings GLib CRITICAL warnings on standard error)"
    done
done
