#!/usr/bin/env bash
# The storage contract with Python's secretstorage (PyPI, in the virtual environment the interop
# scripts share): secretstorage finds an item SharedKeychain wrote and unwraps its secret as the
# documentation shows; it writes an item with the contract's attributes, which SharedKeychain
# adopts (added by `external` in the emulator's provenance) and updates in place; secretstorage then reads the plain secret.
set -euo pipefail
cd "$(dirname "$0")/.."
interop_packages="secretstorage"
source scripts/interop/prelude.sh

app=(--app com.contoso.mail --team ABCDE12345 --state-dir "$state")
group=ABCDE12345.com.contoso.mail
"$bin" keyring start --state-dir "$state" >/dev/null
bus="$("$bin" keyring status --state-dir "$state" --json | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["bus"])')"
export DBUS_SESSION_BUS_ADDRESS="$bus"

"$bin" item add --account alice --service rt --data 'ours-123' "${app[@]}" 2>/dev/null
"$venv/bin/python" scripts/interop/secretstorage_contract.py read "$group" alice 'ours-123'
"$venv/bin/python" scripts/interop/secretstorage_contract.py write "$group" bob rt 'theirs-456'
[ "$("$bin" item get --account bob "${app[@]}" 2>/dev/null)" = 'theirs-456' ] || { echo "error: SharedKeychain did not read bob's plain secret" >&2; exit 1; }
"$bin" item list --added-by external "${app[@]}" 2>/dev/null
"$bin" item update --account bob --data 'rotated-789' "${app[@]}" 2>/dev/null
"$venv/bin/python" scripts/interop/secretstorage_contract.py plain "$group" bob 'rotated-789'
echo "secretstorage interop: 3 passed, 0 failed"
