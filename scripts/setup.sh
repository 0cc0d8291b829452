#!/usr/bin/env bash
# Installs the Debian packages SharedKeychain needs, if any are missing. Sourced by the other
# scripts; safe to run again.
set -euo pipefail

packages=(libsecret-1-dev libglib2.0-dev gnome-keyring libsecret-tools dbus-daemon libglib2.0-bin)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ "${#missing[@]}" -gt 0 ]; then
    echo "==> installing ${missing[*]}" >&2
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null; then
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "error: missing Debian packages: ${missing[*]}; install them as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

if ! command -v swift >/dev/null; then
    echo "error: no swift on PATH; SharedKeychain needs Swift 6.1 or later" >&2
    exit 1
fi
