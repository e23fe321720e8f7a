#!/usr/bin/env bash
# Stops the conformance server that start-server.sh started for a state folder:
#   Conformance/stop-server.sh STATE [--remove]
# Ends its process group (the time limit, the server and any thread of it) by the recorded id; --remove also
# deletes the state folder (keys, database, secrets).
set -euo pipefail
state="${1:?usage: stop-server.sh STATE [--remove]}"
pidfile="$state/server.pid"
if [ -f "$pidfile" ]; then
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
    echo "stopped $pid"
fi
if [ "${2:-}" = "--remove" ]; then rm -rf "$state"; fi
