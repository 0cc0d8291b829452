#!/usr/bin/env bash
# Times `suite blast-radius` on generated suites (`suite init --apps N`) of growing size: the
# text report, --json, and --output x.svg, each as a CLI process of its own, with the SVG's size.
#
#   bash scripts/blast-radius-scale.sh [BINARY]        # default .build/release/shared-keychain
#
# Settings (environment): SIZES (default "25 50 100 200 1000"), GENERATOR (the binary that writes
# the suites, default BINARY: set it to time an older binary that has no `suite init --apps`).
# Prints `apps  text s  json s  svg s  svg bytes  groups` per size; the suites go in a temporary
# directory, removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-.build/release/shared-keychain}"
generator="${GENERATOR:-$bin}"
sizes="${SIZES:-25 50 100 200 1000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seconds() { # seconds a command takes, its output dropped
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }'
}

echo "# $bin"
printf '%-6s %-8s %-8s %-8s %-10s %s\n' apps "text s" "json s" "svg s" "svg bytes" groups
for apps in $sizes; do
    "$generator" suite init --apps "$apps" --suite "$work/$apps" >/dev/null
    text=$(seconds "$bin" suite blast-radius --suite "$work/$apps")
    json=$(seconds "$bin" suite blast-radius --suite "$work/$apps" --json)
    svg=$(seconds "$bin" suite blast-radius --suite "$work/$apps" --output "$work/$apps.svg")
    bytes=$(stat -c %s "$work/$apps.svg" 2>/dev/null || echo -)
    groups=$(grep -c 'class="group"' "$work/$apps.svg" 2>/dev/null || true)
    printf '%-6s %-8s %-8s %-8s %-10s %s\n' "$apps" "$text" "$json" "$svg" "$bytes" "${groups:-0}"
done
