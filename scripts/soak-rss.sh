#!/usr/bin/env bash
# Soak test of `load`'s memory: runs one open-loop `load` on a private keyring of its own (a
# fresh state directory; the user's keyring is never touched) and samples the resident memory
# (VmRSS from /proc/<pid>/status) of the load process and of each of its worker processes.
#
#   bash scripts/soak-rss.sh [BINARY]
#
# Settings (environment): DURATION (default 10m, as `load --duration`), RATE (20 operations per
# second in total; 0 for a closed loop, each app as fast as it can), APPS (2), INTERVAL (30 seconds between samples), ITEMS (20), MIX (load's
# default when empty). Prints one line per sample, `seconds process kB`, then each process's
# first sample, its first sample after a minute of warm-up, its last inside the run (steady), the
# growth from warm to steady in kB a minute, and the sample taken as the run ended.
#
# Bounded in time: the load run is stopped (by its process id) at DURATION plus two minutes,
# and the private keyring is stopped and the state directory removed on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-.build/debug/shared-keychain}"
duration="${DURATION:-10m}"
rate="${RATE:-20}"
apps="${APPS:-2}"
interval="${INTERVAL:-30}"
items="${ITEMS:-20}"
mix="${MIX:-}"

seconds_of() {
    case "$1" in
        *ms) echo $(( ${1%ms} / 1000 )) ;;
        *s) echo "${1%s}" ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *h) echo $(( ${1%h} * 3600 )) ;;
        *) echo "$1" ;;
    esac
}
limit=$(( $(seconds_of "$duration") + 120 ))

state="$(mktemp -d)"
samples="$(mktemp)"
load_pid=""
cleanup() {
    if [ -n "$load_pid" ] && kill -0 "$load_pid" 2>/dev/null; then kill "$load_pid" 2>/dev/null || true; fi
    "$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$state" "$samples"
}
trap cleanup EXIT

arguments=(load --state-dir "$state" --apps "$apps" --duration "$duration" --warmup 0s --items "$items")
[ "$rate" != 0 ] && arguments+=(--rate "$rate")
[ -n "$mix" ] && arguments+=(--mix "$mix")
echo "# $bin ${arguments[*]}"
"$bin" "${arguments[@]}" >/dev/null 2>&1 &
load_pid=$!

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

start=$SECONDS
while kill -0 "$load_pid" 2>/dev/null; do
    elapsed=$(( SECONDS - start ))
    if [ "$elapsed" -gt "$limit" ]; then
        echo "# still running after ${limit}s: stopping it" >&2
        kill "$load_pid" 2>/dev/null || true
        break
    fi
    value="$(rss "$load_pid")"
    [ -n "$value" ] && echo "$elapsed load $value" | tee -a "$samples"
    index=0
    # The workers are the load process's children (`load-worker`), in the order started.
    for child in $(cat "/proc/$load_pid/task/"*/children 2>/dev/null); do
        if grep -q "load-worker" "/proc/$child/cmdline" 2>/dev/null; then
            value="$(rss "$child")"
            [ -n "$value" ] && echo "$elapsed worker$index $value" | tee -a "$samples"
            index=$(( index + 1 ))
        fi
    done
    sleep "$interval"
done
wait "$load_pid" 2>/dev/null && status=0 || status=$?
echo "# load exited with status $status"

# The trend is taken up to the last sample inside the run: a sample taken as the run ends sees
# its end-of-run report being built (+0.45 to +3 MB at once), and counting that as growth once
# made a flat process look like it grew by some 40 kB a minute.
echo "# PROCESS  FIRST kB (s)  WARM kB (s)  STEADY kB (s)  kB/min  AT EXIT kB (s)  (warm: the first sample at 60 s or later; steady: the last before the run's end at $(seconds_of "$duration") s)"
awk -v end="$(seconds_of "$duration")" '
    { if (!($2 in first)) { first[$2] = $3; firstAt[$2] = $1 }
      if ($1 >= 60 && !($2 in warm)) { warm[$2] = $3; warmAt[$2] = $1 }
      if ($1 < end) { steady[$2] = $3; steadyAt[$2] = $1 }
      last[$2] = $3; lastAt[$2] = $1 }
    END {
        for (name in first) {
            if (!(name in warm)) { warm[name] = first[name]; warmAt[name] = firstAt[name] }
            if (!(name in steady)) { steady[name] = last[name]; steadyAt[name] = lastAt[name] }
            minutes = (steadyAt[name] - warmAt[name]) / 60
            printf "# %-8s %8d (%ds) %8d (%ds) %8d (%ds) %+7.1f %8d (%ds)\n", name, first[name], firstAt[name], warm[name], warmAt[name],
                steady[name], steadyAt[name], (minutes > 0 ? (steady[name] - warm[name]) / minutes : 0), last[name], lastAt[name]
        }
    }' "$samples" | sort
