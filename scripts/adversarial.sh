#!/usr/bin/env bash
# Writers and the daemon killed at random moments, for a bounded time, on a throw-away private
# keyring; then every acknowledged write must be there, and `item list` must agree with
# `secret-tool`, another Secret Service client reading the same keyring. Then a hostile app
# plants crafted items in the token cache's group (ADAL-looking legacy items and wipe records
# whose keyed archives have out-of-range references, non-class class records, cycles, 20,000
# levels of nesting, ...) while the other apps list, acquire, remove, read the wipe record and
# export: none may crash, each names the unreadable item once on standard error, and no other
# account is lost.
#
#   bash scripts/adversarial.sh [--seconds N] [--writers N] [--seed N] [--keep] [--hostile-only]
#
# ADVERSARIAL_BIN runs another build of the CLI (an older one, to see what it did).
#
# Each writer is a loop of separate CLI processes on keys of its own: add, update, and every
# third key a delete. An operation counts as acknowledged only when its process exits 0; a key
# whose operation was killed or failed is "uncertain" (the write may or may not have landed)
# and is not checked further. A killer SIGKILLs a random writer process every 50-500 ms and
# the gnome-keyring-daemon about one time in six. Defaults: 30 s, 4 writers. Never touches the
# desktop keyring; everything goes when it ends (--keep keeps the keyring and the journals).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
writers=4
seed=$$
keep=0
hostile_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --writers) writers="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        --hostile-only) hostile_only=1; shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$seconds$writers$seed" in *[!0-9]*) echo "error: --seconds, --writers and --seed take whole numbers" >&2; exit 2 ;; esac
[ "$writers" -ge 1 ] && [ "$writers" -le 32 ] || { echo "error: --writers must be from 1 to 32" >&2; exit 2; }
RANDOM=$seed

source scripts/setup.sh
if [ -z "${ADVERSARIAL_BIN:-}" ]; then swift build --product shared-keychain 2>&1 | grep -E "error|warning: [^p]" || true; fi
bin="${ADVERSARIAL_BIN:-$(swift build --show-bin-path)/shared-keychain}"
unset DBUS_SESSION_BUS_ADDRESS

work="$(mktemp -d)"
state="$work/state"
cleanup() {
    kill -- $(jobs -p) 2>/dev/null || true
    wait 2>/dev/null || true
    if [ "$keep" = 1 ]; then echo "kept: $work (the keyring still runs: $bin keyring stop --state-dir $state)" >&2; return; fi
    "$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

team=ABCDE12345
group="$team.com.contoso.adversarial"
app=(--app com.contoso.adversarial --team "$team" --state-dir "$state" --timeout 10s)
"$bin" keyring start --state-dir "$state" >/dev/null
passed=0
failed=0
check() {
    if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2" >&2; fi
}

writers_phase() {
deadline=$(( $(date +%s) + seconds ))
echo "==> $writers writers for ${seconds}s, writers and the daemon killed at random (seed $seed)"

writer() {
    local w=$1 n=0 key journal="$work/acked.$1"
    : > "$journal"
    while [ "$(date +%s)" -lt "$deadline" ]; do
        n=$((n + 1))
        key="w$w-$n"
        if ! "$bin" item add --account "$key" --service adversarial --data "v1-$key" "${app[@]}" >/dev/null 2>>"$work/errors.$w"; then
            echo "uncertain $key" >> "$journal"; continue
        fi
        echo "add $key v1-$key" >> "$journal"
        if ! "$bin" item update --account "$key" --service adversarial --data "v2-$key" "${app[@]}" >/dev/null 2>>"$work/errors.$w"; then
            echo "uncertain $key" >> "$journal"; continue
        fi
        echo "update $key v2-$key" >> "$journal"
        if [ $((n % 3)) -eq 0 ]; then
            if "$bin" item delete --account "$key" --service adversarial "${app[@]}" >/dev/null 2>>"$work/errors.$w"; then
                echo "delete $key" >> "$journal"
            else
                echo "uncertain $key" >> "$journal"
            fi
        fi
    done
}

# Each writer's shell reports its killed children ("Killed"): to its own log, not the screen.
for w in $(seq 1 "$writers"); do writer "$w" 2>>"$work/shell.$w" & done

killed_clients=0
killed_daemons=0
while [ "$(date +%s)" -lt "$deadline" ]; do
    sleep "0.$(printf '%02d' $((5 + RANDOM % 45)))"
    if [ $((RANDOM % 6)) -eq 0 ]; then
        pid=$("$bin" keyring status --state-dir "$state" --json 2>/dev/null | sed -n 's/.*"pid" *: *\([0-9][0-9]*\).*/\1/p' | head -1)
        if [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; then killed_daemons=$((killed_daemons + 1)); fi
    else
        mapfile -t pids < <(pgrep -f -- "item (add|update|delete) .*--state-dir $state" || true)
        if [ "${#pids[@]}" -gt 0 ]; then
            pid=${pids[$((RANDOM % ${#pids[@]}))]}
            if kill -KILL "$pid" 2>/dev/null; then killed_clients=$((killed_clients + 1)); fi
        fi
    fi
done
wait
echo "==> killed $killed_clients client processes and $killed_daemons daemons"

# What must be there: the last acknowledged operation of every key never left uncertain.
expected="$work/expected"
cat "$work"/acked.* | awk '
    $1 == "uncertain" { uncertain[$2] = 1; next }
    $1 == "delete"    { state[$2] = "-"; next }
    { state[$2] = $3 }
    END { for (key in state) if (!(key in uncertain)) print key, state[key] }' | sort > "$expected"
acknowledged=$(cat "$work"/acked.* | grep -vc '^uncertain' || true)

listed="$work/listed"
if ! "$bin" item list --json --group "$group" --limit 1000000 "${app[@]}" > "$work/list.json" 2>"$work/list.err"; then
    echo "error: item list failed: $(cat "$work/list.err")" >&2
    exit 1
fi
python3 -c 'import json, sys; [print(item["account"]) for item in json.load(open(sys.argv[1]))]' "$work/list.json" | sort > "$listed"

# 1. Every acknowledged write is there with its data; every acknowledged delete stayed deleted.
lost=0
while read -r key value; do
    if [ "$value" = "-" ]; then
        grep -qx "$key" "$listed" && { echo "resurrected: $key was deleted" >&2; lost=$((lost + 1)); }
    else
        data=$("$bin" item get --account "$key" --service adversarial "${app[@]}" 2>/dev/null || true)
        [ "$data" = "$value" ] || { echo "lost: $key should hold $value, holds '${data}'" >&2; lost=$((lost + 1)); }
    fi
done < "$expected"
check "$([ "$lost" -eq 0 ] && echo ok)" "$lost acknowledged writes lost or deletes undone"

# 2. No primary key twice.
dupes=$(uniq -d "$listed" | wc -l)
check "$([ "$dupes" -eq 0 ] && echo ok)" "$dupes accounts listed twice"

# 3. secret-tool, on the same bus, finds exactly the items `item list` shows.
bus=$("$bin" keyring status --state-dir "$state" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["bus"])')
# secret-tool prints the secret on standard output and the attributes on standard error.
DBUS_SESSION_BUS_ADDRESS="$bus" secret-tool search --all access-group "$group" 2>&1 >/dev/null \
    | sed -n 's/^attribute\.account = //p' | sort > "$work/secret-tool"
if cmp -s "$listed" "$work/secret-tool"; then check ok; else
    check no "item list shows $(wc -l < "$listed") items, secret-tool $(wc -l < "$work/secret-tool"): $(diff "$listed" "$work/secret-tool" | head -5 | tr '\n' ' ')"
fi

echo "==> $acknowledged acknowledged operations on $(wc -l < "$expected") settled keys; $(wc -l < "$listed") items in the group"
}

[ "$hostile_only" = 1 ] || writers_phase
source scripts/adversarial-hostile.sh
hostile_phase
echo "adversarial: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
