#!/usr/bin/env bash
# Runs the conformance suite (Tests/TetherConformanceTests) against django-oauth-toolkit on 127.0.0.1:
#
#   Scripts/conformance.sh [more swift test arguments]
#
# Starts the server with Conformance/start-server.sh (its virtual environment is cached in
# ~/.cache/tether-conformance, so only the first run installs it; the state — keys, database, client secrets — goes
# to a new temporary folder; the server stops by itself after CONFORMANCE_MAX_SECONDS, default 900), runs
# `swift test --skip-build --filter TetherConformanceTests` with TETHER_CONFORMANCE_STATE set and
# TETHER_REQUIRE_CONFORMANCE=1, and always stops the server and removes its state folder, also on failure or
# Ctrl-C. Build first: `swift build --build-tests`. Exits with the status of `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

max_seconds="${CONFORMANCE_MAX_SECONDS:-900}"
state="$(mktemp -d "${TMPDIR:-/tmp}/tether-conformance.XXXXXX")"
stop() { Conformance/stop-server.sh "$state" --remove >/dev/null 2>&1 || true; }
trap stop EXIT
trap 'exit 130' INT TERM

started=$SECONDS
Conformance/start-server.sh --state "$state" --max-seconds "$max_seconds" >/dev/null
echo "conformance: server started in $((SECONDS - started)) s; running the suite"
TETHER_CONFORMANCE_STATE="$state" TETHER_REQUIRE_CONFORMANCE=1 \
    swift test --skip-build --filter TetherConformanceTests "$@"
