#!/usr/bin/env bash
# Compares the public API of the app products with BASELINE (a commit) and fails on a break that
# Scripts/api-breakage-allowlist.txt does not list. SwiftPM 6.2 and later do not pass --breakage-allowlist-path on to
# swift-api-digester (the flag is still given, for when they do), so the listed breaks are subtracted here: each
# line of the allowlist is the exact message, as `API breakage: …` is printed. The digester also counts `package`
# declarations as API.
set -uo pipefail
cd "$(dirname "$0")/.."
baseline="${1:?usage: Scripts/check-api-breakage.sh BASELINE}"
allowlist=Scripts/api-breakage-allowlist.txt
products=(Tether TetherOAuth TetherURLSession TetherKeychain TetherCalendar TetherFlights)

output=$(swift package diagnose-api-breaking-changes "$baseline" --products "${products[@]}" \
    --breakage-allowlist-path "$allowlist" --baseline-dir "${TETHER_API_BASELINE_DIR:-.build-api-baseline}" 2>&1)
status=$?
echo "$output" | grep -v '^\[[0-9]*/[0-9]*\]'
found=$(echo "$output" | grep -o 'API breakage: .*' | sort -u)
if [ "$status" -ne 0 ] && [ -z "$found" ]; then
    echo "api check: the comparison failed before it found any break (exit $status)" >&2
    exit 1
fi
unlisted=$(comm -23 <(echo "$found" | sed '/^$/d') <(grep -v '^#' "$allowlist" | sed '/^$/d' | sort -u))
if [ -n "$unlisted" ]; then
    echo "api check: breaking changes not in $allowlist:" >&2
    echo "$unlisted" >&2
    exit 1
fi
echo "api check: $(echo "$found" | sed '/^$/d' | wc -l) breaking changes, all listed in $allowlist"
