#!/usr/bin/env bash
# How long `item add --timeout T` takes behind a group lock held by a stopped process, on a
# throw-away private keyring: the wait must end at T (plus the command's own start-up), with an
# error naming the lock file and the process.
#
#   bash scripts/lock-timeout.sh [--timeout 2s] [--runs 5] [--binary PATH]
#
# The holder is flock(1) on the group's lock file, stopped with SIGSTOP. Prints each run's wall
# time, the slowest, and the first run's message.
set -euo pipefail
cd "$(dirname "$0")/.."

timeout=2s
runs=5
binary=.build/debug/shared-keychain
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) timeout="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
unset DBUS_SESSION_BUS_ADDRESS

state=$(mktemp -d /tmp/sk-lock-timeout-XXXXXX)
holder=
cleanup() {
    if [ -n "$holder" ]; then kill -KILL "$holder" 2>/dev/null || true; kill -CONT "$holder" 2>/dev/null || true; fi
    "$binary" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$state"
}
trap cleanup EXIT

app=(--app com.contoso.locks --team ABCDE12345 --state-dir "$state")
"$binary" item add "${app[@]}" --account first --service svc --data x 2>/dev/null >/dev/null
lock=$(ls "$state"/locks/ABCDE12345.com.contoso.locks-*.lock)
flock --no-fork "$lock" sleep 600 &
holder=$!
# Until flock(1) holds the lock.
while flock --nonblock "$lock" true; do :; done
kill -STOP "$holder"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
seconds() { printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }
slowest=0
for run in $(seq "$runs"); do
    start=$(ms)
    if message=$("$binary" item add "${app[@]}" --account "run$run" --service svc --data y --timeout "$timeout" 2>&1 >/dev/null); then
        echo "run $run: the add succeeded behind a stopped holder" >&2
        exit 1
    fi
    elapsed=$(( $(ms) - start ))
    echo "run $run: $(seconds "$elapsed") s"
    if (( elapsed > slowest )); then slowest=$elapsed; fi
    [ "$run" = 1 ] && first=$message
done
echo "slowest: $(seconds "$slowest") s (--timeout $timeout)"
echo "$first" | grep -v '^note:'
