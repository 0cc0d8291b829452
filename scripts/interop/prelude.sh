# Sourced by the interop scripts after `cd` to the repository: installs what is missing, makes a
# virtual environment in .build-interop/venv with the PyPI packages named in $interop_packages,
# builds the CLI, and sets $venv, $bin and a throw-away $work with a private keyring's $state,
# stopped and removed when the script exits. The desktop's keyring is never reached.
source scripts/setup.sh
unset DBUS_SESSION_BUS_ADDRESS

venv=.build-interop/venv
if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating $venv" >&2
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian's python3 needs python3-venv for ensurepip.
        if [ "$(id -u)" -eq 0 ]; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        fi
        rm -rf "$venv"
        python3 -m venv "$venv"
    fi
fi
for package in $interop_packages; do
    if ! "$venv/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$package') is None)"; then
        echo "==> installing $package from PyPI into $venv" >&2
        "$venv/bin/pip" install -q --disable-pip-version-check "$package"
    fi
done

swift build --product shared-keychain >/dev/null
bin="$(swift build --show-bin-path)/shared-keychain"
work="$(mktemp -d)"
state="$work/state"
trap '"$bin" keyring stop --state-dir "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
