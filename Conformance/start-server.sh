#!/usr/bin/env bash
# Starts django-oauth-toolkit (Conformance/requirements.txt) as an OAuth 2.0 / OpenID Connect authorization server
# on 127.0.0.1, for the conformance suite: a server that Tether's authors did not write.
#
#   Conformance/start-server.sh [--port N] [--state DIR] [--max-seconds N] [--foreground]
#
# It creates (or reuses) a virtual environment with the pinned packages, a state folder (default: a new temporary
# folder) holding an RSA signing key made now, a migrated SQLite database, the test user ada / lovelace and the
# clients (server/conformance/management/commands/conformance_setup.py), starts the server bounded in time
# (default 1800 s; it stops itself then), waits until discovery answers, prints the port, the issuer and the client
# ids, and writes them to STATE/server.env for `source`. Client secrets are only in STATE/clients.json (0600).
#
# Without --foreground it returns once the server answers and leaves it running in its own process group; stop it
# with `Conformance/stop-server.sh STATE`. With --foreground it waits for the server and stops it on exit,
# Ctrl-C or TERM.
#
# Switches (environment, read at start; the same settings change at run time through POST /conformance/settings,
# see server/conformance/settings.py and views.py): CONFORMANCE_ACCESS_TOKEN_SECONDS, CONFORMANCE_REFRESH_TOKEN_SECONDS,
# CONFORMANCE_ROTATE_REFRESH_TOKEN, CONFORMANCE_REUSE_PROTECTION, CONFORMANCE_GRACE_SECONDS,
# CONFORMANCE_DEVICE_INTERVAL, CONFORMANCE_DEVICE_CODE_SECONDS, CONFORMANCE_AUTH_METHODS, CONFORMANCE_ISS_PARAMETER, CONFORMANCE_OIDC.
#
# CONFORMANCE_VENV chooses the virtual environment's folder (default: ~/.cache/tether-conformance/venv-HASH, where
# HASH follows requirements.txt, so a second start skips the install); PYTHON the interpreter that makes it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port=""
state=""
max_seconds=1800
foreground=0
while [ $# -gt 0 ]; do
    case "$1" in
        --port) port="$2"; shift 2 ;;
        --state) state="$2"; shift 2 ;;
        --max-seconds) max_seconds="$2"; shift 2 ;;
        --foreground) foreground=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "start-server.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

started=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)"; }
say() { echo "conformance: $*" >&2; }

# 1. The virtual environment, keyed by the requirements so a change reinstalls.
python="${PYTHON:-python3}"
requirements="$here/requirements.txt"
hash="$(sha256sum "$requirements" | cut -c1-12)"
venv="${CONFORMANCE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-conformance/venv-$hash}"
if [ ! -f "$venv/.installed" ]; then
    say "creating $venv"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! "$python" -m venv "$venv"; then
        say "could not create a virtual environment with $python (on Debian: apt-get install python3-venv)"
        exit 1
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    touch "$venv/.installed"
    say "virtual environment ready after $(elapsed) s"
fi
vpython="$venv/bin/python"

# 2. The state folder: keys, database, clients.
if [ -z "$state" ]; then state="$(mktemp -d "${TMPDIR:-/tmp}/tether-conformance.XXXXXX")"; fi
mkdir -p "$state"
chmod 700 "$state"
state="$(cd "$state" && pwd)"
if [ -f "$state/server.pid" ] && kill -0 "$(cat "$state/server.pid")" 2>/dev/null; then
    say "a server already runs for $state (pid $(cat "$state/server.pid")); stop it with $here/stop-server.sh $state"
    exit 1
fi
if [ -z "$port" ]; then
    port="$("$vpython" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
fi

"$vpython" - "$state" <<'PY'
import os, secrets, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

state = sys.argv[1]
def write(name, data):
    fd = os.open(os.path.join(state, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
write("oidc-key.pem", key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()))
write("admin-key", secrets.token_urlsafe(24).encode())
write("django-secret", secrets.token_urlsafe(48).encode())
PY

export CONFORMANCE_STATE="$state" CONFORMANCE_PORT="$port" DJANGO_SETTINGS_MODULE=conformance.settings
export PYTHONDONTWRITEBYTECODE=1
cd "$here/server"
# Migrating takes tens of seconds on a busy machine; the migrated empty database depends only on the installed
# packages' migrations (the conformance app has no models), so it is kept beside the virtual environment.
rm -f "$state/db.sqlite3"
if [ -f "$venv/db-template.sqlite3" ]; then
    cp "$venv/db-template.sqlite3" "$state/db.sqlite3"
else
    "$vpython" manage.py migrate --verbosity 0
    cp "$state/db.sqlite3" "$venv/db-template.sqlite3.tmp" && mv "$venv/db-template.sqlite3.tmp" "$venv/db-template.sqlite3"
fi
clients="$("$vpython" manage.py conformance_setup)"
say "database and clients ready after $(elapsed) s"

# 3. The server, bounded in time, in its own process group so that stop-server.sh ends all of it.
: >"$state/server.log"
setsid timeout --signal=TERM --kill-after=5 "$max_seconds" \
    "$vpython" manage.py runserver --noreload --skip-checks "127.0.0.1:$port" >>"$state/server.log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$state/server.pid"

stop() { "$here/stop-server.sh" "$state" >/dev/null 2>&1 || true; }

ready=0
for _ in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if "$vpython" - "http://127.0.0.1:$port/o/.well-known/oauth-authorization-server" <<'PY' 2>/dev/null; then
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=2) as response:
    sys.exit(0 if response.status == 200 else 1)
PY
        ready=1
        break
    fi
    sleep 0.1
done
if [ "$ready" -ne 1 ]; then
    say "the server did not answer; its log:"
    tail -n 30 "$state/server.log" >&2
    stop
    exit 1
fi

issuer="http://127.0.0.1:$port/o"
{
    echo "CONFORMANCE_PORT=$port"
    echo "CONFORMANCE_ISSUER=$issuer"
    echo "CONFORMANCE_STATE=$state"
    echo "CONFORMANCE_PID=$pid"
    echo "CONFORMANCE_ADMIN_KEY_FILE=$state/admin-key"
    echo "CONFORMANCE_CLIENTS_FILE=$state/clients.json"
    echo "CONFORMANCE_CLIENT_IDS=\"$clients\""
    echo "CONFORMANCE_PYTHON=$vpython"
} >"$state/server.env"
say "server ready after $(elapsed) s (stops itself after $max_seconds s)"
cat "$state/server.env"

if [ "$foreground" -eq 1 ]; then
    trap 'stop; exit 0' INT TERM
    trap stop EXIT
    wait "$pid" || true
fi
