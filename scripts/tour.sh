#!/usr/bin/env bash
# The story this tool exists for, in under a minute on a private keyring in a throw-away state
# directory (installs what is missing and builds first):
#   1. Mail and Calendar share a sign-in through the keychain sharing group;
#   2. Notes, not entitled to the group, is refused (errSecMissingEntitlement, exit code 13);
#   3. Calendar wipes the cache and Mail's sign-in is gone, with no trace on the device;
#   4. the emulator's own record (a device keeps none) names Calendar;
#   5. the fix an iOS developer can deploy, per-app groups with single sign-on through the
#      broker, keeps Mail signed in when Calendar signs out;
#   6. the blast radius of both layouts: which app can destroy which app's sign-in.
# Every command is its own process, like separate apps on a device.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build --product shared-keychain >&2
bin="$(swift build --show-bin-path)/shared-keychain"
state="$(mktemp -d)"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
export SHARED_KEYCHAIN_STATE_DIR="$state"

# The shared-group suite: one client ID, one family, the group com.microsoft.adalcache in
# Mail's and Calendar's entitlements (examples/contoso/*.entitlements), not in Notes'.
client=(--team ABCDE12345 --client-id 7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d --family-id 1)
mail=(--app com.contoso.mail --entitlements examples/contoso/mail.entitlements "${client[@]}")
calendar=(--app com.contoso.calendar --entitlements examples/contoso/calendar.entitlements "${client[@]}")
notes=(--app com.contoso.notes --entitlements examples/contoso/notes.entitlements "${client[@]}")

title() { printf '\n# %s\n' "$*"; }
step() { printf '\n$ shared-keychain %s\n' "$*"; }
# Runs a step that must fail with exit code $1, and says so.
failing() {
    local expected="$1"; shift
    step "$@"
    set +e
    "$bin" "$@" 2>&1
    local code=$?
    set -e
    echo "(exit code $code)"
    [ "$code" -eq "$expected" ] || { echo "tour: expected exit code $expected, got $code" >&2; exit 1; }
}
run() { step "$@"; "$bin" "$@" 2>&1; }

run keyring start

title "1. Mail signs alice in; Calendar gets her token through the shared group, no prompt"
run token signin --user alice@contoso.com "${mail[@]}"
run token acquire --account alice@contoso.com "${calendar[@]}"

title "2. Notes is not entitled to the group: refused"
failing 13 token accounts "${notes[@]}"

title "3. Calendar wipes the cache: the group is empty, no trace on the device, and Mail's next call needs the user"
run token wipe "${calendar[@]}"
run item list --app com.contoso.mail --team ABCDE12345 --entitlements examples/contoso/mail.entitlements
failing 20 token acquire --silent --account alice@contoso.com "${mail[@]}"

title "4. The emulator's own record names Calendar"
run token wipe-info "${mail[@]}"

title "5. The fix you can deploy: per-app groups, single sign-on through the broker"
run device install --suite examples/suite-per-app
run device install-broker
run token acquire --interactive --account alice@contoso.com --app com.contoso.mail
run token acquire --interactive --account alice@contoso.com --app com.contoso.calendar
run token wipe --app com.contoso.calendar
run token acquire --silent --account alice@contoso.com --app com.contoso.mail

title "6. Who can destroy whose sign-in: the shared group, then per-app groups"
run suite blast-radius --suite examples/suite
run suite blast-radius --suite examples/suite-per-app

run keyring stop
