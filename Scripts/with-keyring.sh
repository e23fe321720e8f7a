#!/usr/bin/env bash
# Runs a command inside a throwaway D-Bus session with a headless, unlocked GNOME Keyring (the Secret Service), for
# the tests of the vault key in the Secret Service and of SecretServiceStore:
#
#   Scripts/with-keyring.sh swift test --skip-build --no-parallel --filter "SecretService|KeyringStatus"
#
# (--no-parallel: some tests lock the keyring, which the others must not see)
#
# The keyring's files live in a temporary folder (never the user's ~/.local/share/keyrings) and are removed at the
# end, with the session. Variables given to the command: DBUS_SESSION_BUS_ADDRESS (the session's bus),
# TETHER_KEYRING_PASSWORD (the login keyring's password) and TETHER_KEYRING_CONTROL (Scripts/keyring-control.py,
# which locks and unlocks the keyring: `lock`, or `unlock` with the password on standard input).
# Needs Debian's dbus-daemon (or dbus), gnome-keyring, libsecret-1-0, libsecret-tools and python3-dbus.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [[ -z "${TETHER_KEYRING_INSIDE:-}" ]]; then
    for tool in dbus-run-session gnome-keyring-daemon dbus-send; do
        if ! command -v "$tool" >/dev/null; then
            echo "with-keyring: $tool not found; install with: sudo apt-get install -y dbus-daemon gnome-keyring" \
                "libsecret-1-0 libsecret-tools python3-dbus" >&2
            exit 1
        fi
    done
    exec dbus-run-session -- env TETHER_KEYRING_INSIDE=1 "$0" "$@"
fi
unset TETHER_KEYRING_INSIDE

root=$(mktemp -d "${TMPDIR:-/tmp}/tether-keyring.XXXXXX")
mkdir -m 700 "$root/data" "$root/run"
password="tether-test-$RANDOM$RANDOM"
# The daemon keeps its keyrings in $XDG_DATA_HOME/keyrings and its control socket in $XDG_RUNTIME_DIR/keyring: both
# in the temporary folder, for the daemon only. --unlock creates the login keyring with the password from standard
# input and makes it the default collection.
printf '%s' "$password" | XDG_DATA_HOME="$root/data" XDG_RUNTIME_DIR="$root/run" \
    gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
# The daemon exits by itself when dbus-run-session ends the bus after the command.
trap 'rm -rf "$root"' EXIT

# --daemonize returns before the daemon owns its name on the bus: wait for it (at most 5 s).
for _ in $(seq 50); do
    if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; then
        break
    fi
    sleep 0.1
done

export TETHER_KEYRING_PASSWORD="$password"
export TETHER_KEYRING_CONTROL="$here/keyring-control.py"
"$@"
