#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1 for the TetherPostgres tests, and removes it at the end.
#
#   Scripts/start-postgres.sh                        prints the connection URL and waits for Ctrl-C
#   Scripts/start-postgres.sh swift test --filter …  runs the command with the cluster's variables set
#
# The cluster has its own data folder under a temporary directory, a free port, trust authentication on loopback
# only, and no other listener. It needs Debian's `postgresql` package (`sudo apt-get install -y postgresql`).
# Variables given to the command: TETHER_POSTGRES_URL (postgresql://tether@127.0.0.1:PORT/tether), and for the
# restart test TETHER_POSTGRES_PG_CTL and TETHER_POSTGRES_DATA.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [[ -z "$bin" || ! -x "$bin/pg_ctl" ]]; then
    echo "start-postgres: pg_ctl not found; install PostgreSQL with: sudo apt-get install -y postgresql" >&2
    exit 1
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/tether-postgres.XXXXXX")
data="$root/data"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user the package creates.
as_owner=()
if [[ $(id -u) -eq 0 ]]; then
    as_owner=(runuser -u postgres --)
    chown postgres "$root"
fi
# pg_ctl as the cluster's owner, for this script and for the restart test.
cat >"$root/pg_ctl" <<SCRIPT
#!/usr/bin/env bash
exec ${as_owner[*]} "$bin/pg_ctl" "\$@"
SCRIPT
chmod 755 "$root/pg_ctl"

stop() {
    "$root/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$root"
}
trap stop EXIT
trap 'exit 130' INT TERM

"${as_owner[@]}" "$bin/initdb" -D "$data" -U tether --auth=trust --no-sync -E UTF8 >"$root/initdb.log" 2>&1 \
    || { cat "$root/initdb.log" >&2; exit 1; }
# TCP on loopback only; the socket in the temporary folder (not /var/run/postgresql, which needs root). In the
# configuration file, so that a plain `pg_ctl start` (the restart test) starts the same server.
cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$root'
fsync = off
CONF
"$root/pg_ctl" -D "$data" -l "$root/server.log" -w start >/dev/null \
    || { cat "$root/server.log" >&2; exit 1; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U tether tether

export TETHER_POSTGRES_URL="postgresql://tether@127.0.0.1:$port/tether"
export TETHER_POSTGRES_PG_CTL="$root/pg_ctl"
export TETHER_POSTGRES_DATA="$data"
echo "TETHER_POSTGRES_URL=$TETHER_POSTGRES_URL"

if [[ $# -gt 0 ]]; then
    "$@"
else
    echo "Ctrl-C stops the cluster and removes its data folder."
    while true; do sleep 3600; done
fi
