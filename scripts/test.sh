#!/usr/bin/env bash
# Runs every test. Tests that need a Secret Service start their own private gnome-keyring on a
# private D-Bus session bus and stop it when they finish; the user's own keyring is never used.
#
# Prints a summary: each suite's result, every failure with its details, the property tests'
# seeds, and the count. `-v` (or SHARED_KEYCHAIN_TEST_VERBOSE=1) prints every line swift test
# prints; other arguments go to swift test (`bash scripts/test.sh --filter Conformance`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

verbose="${SHARED_KEYCHAIN_TEST_VERBOSE:-0}"
arguments=()
for argument in "$@"; do
    case "$argument" in
        -v|--verbose) verbose=1 ;;
        *) arguments+=("$argument") ;;
    esac
done

# The end-to-end tests run the built binary as separate processes.
swift build --product shared-keychain 2>&1 | grep -E "error|warning: [^p]" || true
# Never let a test reach the desktop session's keyring, even by accident.
unset DBUS_SESSION_BUS_ADDRESS

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
if [ "$verbose" = 1 ]; then
    swift test "${arguments[@]}" 2>&1 | tee "$log"
else
    # Suites, failures with their details, build errors, and swift test's closing line.
    swift test "${arguments[@]}" 2>&1 | tee "$log" | grep --line-buffered -E '^(✔ Suite|✘|↳ [^TL]|✔ Test run|error:)|: error:'
fi
status=${PIPESTATUS[0]}
set -e

# The property-based tests' case counts and seed (SHARED_KEYCHAIN_PROPERTY_SEED picks another).
grep -E "^property '" "$log" || true

# One plain closing line, whatever the test library printed above it.
total=$(grep -oE 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
failed=$(grep -E '^✘ Test ' "$log" | grep -v '^✘ Test run' | grep -c ' failed after' || true)
# swift test ended without its closing line (the test process crashed or was killed): the
# summary above cannot say why, so show the end of what it printed.
if [ "$status" != 0 ] && [ "$total" = 0 ] && [ "$verbose" != 1 ]; then
    echo "swift test exited with status $status before its closing line (the test process crashed or was killed)."
    echo "What it printed of a crash (Swift traps, GLib assertions and criticals, signals):"
    crash=$(grep -vE '^(◇|✔|✘|↳)' "$log" \
        | grep -E 'Fatal error|Program crashed|Thread [0-9]+ crashed|assertion|CRITICAL|^\*\*|ERROR:|Segmentation fault|signal [0-9]+' \
        | head -n 40 || true)
    echo "${crash:-(nothing: a signal from outside, SIGKILL or the OOM killer of the kernel, leaves no message)}"
    echo "The last lines it printed:"
    tail -n 40 "$log"
fi
[ "$verbose" = 1 ] || echo "(summary only; bash scripts/test.sh -v prints every test)"
echo "tests: $((total - failed)) passed, ${failed} failed"
exit "$status"
