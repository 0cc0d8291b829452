#!/usr/bin/env bash
# A short tour of the main job on a fresh machine: installs what is missing, builds, then has
# three apps of team ABCDE12345 use a private keyring in a throw-away state directory:
# mail writes a token to the shared group, calendar (another process) reads it, and notes,
# which is not entitled to the group, gets errSecMissingEntitlement.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build --product shared-keychain >&2
bin="$(swift build --show-bin-path)/shared-keychain"
state="$(mktemp -d)"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
export SHARED_KEYCHAIN_STATE_DIR="$state"

mail=(--app com.contoso.mail --team ABCDE12345 --entitlements examples/contoso/mail.entitlements)
calendar=(--app com.contoso.calendar --team ABCDE12345 --entitlements examples/contoso/calendar.entitlements)
notes=(--app com.contoso.notes --team ABCDE12345 --entitlements examples/contoso/notes.entitlements)

step() { printf '\n$ shared-keychain %s\n' "$*"; }

step keyring start
"$bin" keyring start

step item add --account alice@contoso.com --service refreshtoken-client-- --data rt-123 "${mail[@]}"
"$bin" item add --account alice@contoso.com --service refreshtoken-client-- --data rt-123 "${mail[@]}"

step item get --account alice@contoso.com "${calendar[@]}"
"$bin" item get --account alice@contoso.com "${calendar[@]}"; echo

step item list "${calendar[@]}"
"$bin" item list "${calendar[@]}"

step item get --account alice@contoso.com --group ABCDE12345.com.microsoft.adalcache --json "${notes[@]}"
set +e
"$bin" item get --account alice@contoso.com --group ABCDE12345.com.microsoft.adalcache --json "${notes[@]}"
code=$?
set -e
echo "(exit code $code)"
[ "$code" -eq 13 ] || { echo "tour: expected exit code 13 (errSecMissingEntitlement), got $code" >&2; exit 1; }

step keyring stop
"$bin" keyring stop
