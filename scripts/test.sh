#!/usr/bin/env bash
# Runs every test. Tests that need a Secret Service start their own private gnome-keyring on a
# private D-Bus session bus and stop it when they finish; the user's own keyring is never used.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# The end-to-end tests run the built binary as separate processes.
swift build --product shared-keychain
# Never let a test reach the desktop session's keyring, even by accident.
unset DBUS_SESSION_BUS_ADDRESS

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# The property-based tests' case counts and seed (SHARED_KEYCHAIN_PROPERTY_SEED picks another).
grep -E "^property '" "$log" || true

# One plain closing line, whatever the test library printed above it.
total=$(grep -oE 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
failed=$(grep -cE '^✘ Test [^r].* failed' "$log" || true)
echo "tests: $((total - failed)) passed, ${failed} failed"
exit "$status"
