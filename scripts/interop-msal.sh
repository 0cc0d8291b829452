#!/usr/bin/env bash
# Interop with the real MSAL Python: MSAL Python's own TokenCache writes a cache (two accounts,
# family refresh tokens), SharedKeychain imports it into a shared group on a private keyring and
# exports it, and MSAL Python reads the export and must find the same accounts and tokens under
# keys of its own shape. msal comes from PyPI into a virtual environment this script creates.
set -euo pipefail
cd "$(dirname "$0")/.."
interop_packages="msal"
source scripts/interop/prelude.sh

cat > "$work/app.entitlements" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>keychain-access-groups</key>
<array><string>$(AppIdentifierPrefix)com.microsoft.adalcache</string></array></dict></plist>
PLIST
app=(--app com.contoso.mail --team ABCDE12345 --entitlements "$work/app.entitlements"
     --client-id 4b0db8c2-9f26-4417-8bde-3f0e3656f8e0 --state-dir "$state")

"$venv/bin/python" scripts/interop/msal_cache.py write "$work/msal.json"
"$bin" cache import "${app[@]}" --input "$work/msal.json"
# MSAL Python wrote its items under login.microsoftonline.com; the emulator writes under the
# cloud's preferred_cache (login.windows.net) and, as MSAL (and MSAL Python's
# _get_authority_aliases) does, looks tokens up under every alias of the cloud.
"$bin" token acquire "${app[@]}" --account alice@contoso.com --scopes user.read calendars.read --silent --now 1764000000 --json \
    | grep -q '"source" : "cache"' && echo "ok   a token MSAL Python wrote under login.microsoftonline.com is found (aliases)" \
    || { echo "FAIL the imported access token was not found across aliases"; exit 1; }
"$bin" cache export "${app[@]}" --output "$work/export.json"
"$venv/bin/python" scripts/interop/msal_cache.py check "$work/msal.json" "$work/export.json"
