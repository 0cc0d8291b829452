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
"$bin" cache export "${app[@]}" --output "$work/export.json"
"$venv/bin/python" scripts/interop/msal_cache.py check "$work/msal.json" "$work/export.json"
