#!/usr/bin/env bash
# Builds examples/secitem-package (iOS keychain code, unchanged) against this checkout and runs
# its tests as com.contoso.mail: once in memory, once on a private keyring in a throw-away
# state directory, which it stops afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# Never let the example reach the desktop session's keyring.
unset DBUS_SESSION_BUS_ADDRESS

example=examples/secitem-package
state="$(mktemp -d)"
cleanup() {
    "$(swift build --show-bin-path)/shared-keychain" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$state"
}
trap cleanup EXIT
swift build --product shared-keychain >/dev/null

export SHARED_KEYCHAIN_APP=com.contoso.mail
export SHARED_KEYCHAIN_TEAM=ABCDE12345
export SHARED_KEYCHAIN_ENTITLEMENTS="$PWD/$example/mail.entitlements"
export SHARED_KEYCHAIN_STATE_DIR="$state"

for keyring in memory private; do
    echo "==> $example: swift test, SHARED_KEYCHAIN_KEYRING=$keyring" >&2
    SHARED_KEYCHAIN_KEYRING=$keyring swift test --package-path "$example" 2>&1 | grep -vE '^(\[[0-9]+/[0-9]+\]|Compiling|Building|Write|Emitting|Linking|Fetching|Computing|Working copy|Creating working copy)' | tail -n 20
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "error: the example's tests failed with SHARED_KEYCHAIN_KEYRING=$keyring" >&2; exit 1; }
done
# A fault plan failing the app's first read with -25308: the example's FaultPlanTests sees it
# exactly once (a count is shared by every process using the device).
cli="$(swift build --show-bin-path)/shared-keychain"
echo "==> $example: swift test --filter FaultPlanTests, with a fault plan failing the first read with -25308" >&2
"$cli" device fault add --state-dir "$state" --app com.contoso.mail --call SecItemCopyMatching --status errSecInteractionNotAllowed --count 1
CONTOSO_FAULT_PLAN=first-read-25308 SHARED_KEYCHAIN_KEYRING=private swift test --package-path "$example" --filter FaultPlanTests 2>&1 | grep -vE '^(\[[0-9]+/[0-9]+\]|Compiling|Building|Write|Emitting|Linking|Fetching|Computing|Working copy|Creating working copy)' | tail -n 20
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "error: the example's FaultPlanTests failed under the fault plan" >&2; exit 1; }
"$cli" device fault list --state-dir "$state"
"$cli" device fault list --state-dir "$state" --json | grep -q '"injected" : 1' || { echo "error: the fault plan did not inject exactly one fault" >&2; exit 1; }
"$cli" device fault clear --state-dir "$state"
# What the tests left on the private keyring is visible to the CLI as the same app.
"$(swift build --show-bin-path)/shared-keychain" keyring status --state-dir "$state" | head -n 1
