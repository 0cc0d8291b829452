#!/usr/bin/env bash
# Builds real iOS keychain code, unchanged but for `@_exported import Security`, against this
# checkout and runs its flows as com.contoso.mail, in memory and on a private keyring
# (examples/third-party-code). The code is fetched at pinned commits, from GitHub or from the
# local clones THIRD_PARTY_CODE_FROM names, into examples/third-party-code/Vendor/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
unset DBUS_SESSION_BUS_ADDRESS

example=examples/third-party-code
vendor="$example/Vendor"
from="${THIRD_PARTY_CODE_FROM:-}"
work="$(mktemp -d)"
state="$(mktemp -d)"
cleanup() {
    "$(swift build --show-bin-path)/shared-keychain" keyring stop --state-dir "$state" >/dev/null 2>&1 || true
    rm -rf "$work" "$state"
}
trap cleanup EXIT

# fetch NAME URL COMMIT: a checkout of COMMIT in $work/NAME.
fetch() {
    local name="$1" url="$2" commit="$3" source="$2"
    [ -n "$from" ] && source="$from/$name"
    git clone --quiet "$source" "$work/$name" \
        || { echo "error: could not clone $name from $source (set THIRD_PARTY_CODE_FROM to local clones)" >&2; exit 1; }
    git -C "$work/$name" -c advice.detachedHead=false checkout --quiet "$commit" \
        || { echo "error: $source has no commit $commit" >&2; exit 1; }
}
fetch GenericKeychain https://github.com/Coeur/GenericKeychain 5c073ce8243b125ef6da870ba8656b05019d81a9
fetch SwiftKeychainWrapper https://github.com/jrendel/SwiftKeychainWrapper a3e100403a231040a55c66dd80fdadb9503abf19

rm -rf "$vendor"
mkdir -p "$vendor/GenericKeychain" "$vendor/GenericKeychain5" "$vendor/SwiftKeychainWrapper"
cp "$work/GenericKeychain/Pod/Classes/KeychainPasswordItem.swift" "$vendor/GenericKeychain/"
cp "$work/GenericKeychain/Pod/Classes/KeychainPasswordItem.swift" "$vendor/GenericKeychain5/"
cp "$work/SwiftKeychainWrapper/SwiftKeychainWrapper/"*.swift "$vendor/SwiftKeychainWrapper/"
for target in GenericKeychain GenericKeychain5 SwiftKeychainWrapper; do
    # The one line iOS does not need: SecItem comes from SharedKeychain's Security product.
    echo '@_exported import Security' > "$vendor/$target/ExportSecurity.swift"
done

swift build --product shared-keychain >/dev/null
export SHARED_KEYCHAIN_APP=com.contoso.mail
export SHARED_KEYCHAIN_TEAM=ABCDE12345
export SHARED_KEYCHAIN_ENTITLEMENTS="$PWD/examples/secitem-package/mail.entitlements"
export SHARED_KEYCHAIN_STATE_DIR="$state"

quiet() { grep -vE '^(\[[0-9]+/[0-9]+\]|Compiling|Building|Write|Emitting|Linking|Fetching|Computing|Working copy|Creating working copy)'; }
for keyring in memory private; do
    echo "==> $example: swift test, SHARED_KEYCHAIN_KEYRING=$keyring" >&2
    SHARED_KEYCHAIN_KEYRING=$keyring swift test --package-path "$example" 2>&1 | quiet | tail -n 20
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "error: the third-party code's tests failed with SHARED_KEYCHAIN_KEYRING=$keyring" >&2; exit 1; }
done

echo "==> $example: SwiftKeychainWrapper in Swift 6 mode (expected to fail on the library's own code)" >&2
if SWIFT_KEYCHAIN_WRAPPER_MODE=6 swift build --package-path "$example" --target SwiftKeychainWrapper >"$work/swift6.log" 2>&1; then
    echo "SwiftKeychainWrapper builds in Swift 6 mode"
else
    grep -E 'error:' "$work/swift6.log" | sed -E 's|^.*/Vendor/|Vendor/|' | sort -u
fi
