#!/usr/bin/env bash
# Builds the DocC documentation of the public libraries (SharedKeychain, TokenCache,
# KeychainServices) with every warning an error, so broken links and stale symbols fail CI.
# Output: .build/plugins/Swift-DocC/outputs/<Target>.doccarchive (open with `docc preview`, or
# pass --transform-for-static-hosting to publish).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
for target in SharedKeychain TokenCache KeychainServices; do
    echo "==> documentation for $target" >&2
    swift package generate-documentation --target "$target" --warnings-as-errors "$@" 2>&1 \
        | grep -vE '^(\[[0-9]+/[0-9]+\]|Building|Compiling|Emitting|Write|Linking)' | tail -n 30
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "error: the documentation of $target does not build" >&2; exit 1; }
done
echo "documentation: $(ls -d .build/plugins/Swift-DocC/outputs/*.doccarchive | wc -l) archives in .build/plugins/Swift-DocC/outputs" >&2
