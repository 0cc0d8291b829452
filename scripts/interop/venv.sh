# Sourced by the interop scripts: a virtual environment in .build-interop/venv with the PyPI
# packages named in $interop_packages (installed when missing). Sets $venv.
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
