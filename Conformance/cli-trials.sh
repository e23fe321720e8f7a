#!/usr/bin/env bash
# Runs the `tether` command against the conformance server as a new user would and prints, for each trial, what
# tether said, its exit status and the requests the server saw (from GET /conformance/requests; no secrets).
#
#   Conformance/cli-trials.sh [TETHER_BINARY]        default: tether on PATH, or $TETHER
#
# It starts its own server (start-server.sh, state in a temporary folder, stopped on exit) and keeps every
# connection in its own temporary TETHER_HOME. Trials end with "expected:" — what Tether should do — so a changed
# behaviour stands out; FINDINGS.md explains each. Takes about two minutes (device polls, expiry waits).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T="${1:-${TETHER:-tether}}"
work="$(mktemp -d "${TMPDIR:-/tmp}/tether-trials.XXXXXX")"
state="$work/server"
"$here/start-server.sh" --state "$state" --max-seconds 900 >/dev/null || exit 1
trap '"$here/stop-server.sh" "$state" >/dev/null; rm -rf "$work"' EXIT
# shellcheck disable=SC1091
source "$state/server.env"
B="http://127.0.0.1:$CONFORMANCE_PORT"
I="$CONFORMANCE_ISSUER"
key="X-Conformance-Key: $(cat "$CONFORMANCE_ADMIN_KEY_FILE")"
export BROWSER="$CONFORMANCE_PYTHON $here/form-browser.py" NO_COLOR=1 TETHER_VAULT_KEY=""
unset TETHER_VAULT_KEY TETHER_CONNECTION TETHER_CLIENT_ID TETHER_CLIENT_SECRET TETHER_ISSUER TETHER_SCOPE
for client in tether-basic tether-post tether-device-confidential; do
    "$CONFORMANCE_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["clients"][sys.argv[2]]["secret"])' \
        "$CONFORMANCE_CLIENTS_FILE" "$client" >"$work/$client.secret"
done

setting() { curl -s -H "$key" -X POST -d "$1" "$B/conformance/settings" >/dev/null; }
expire() { curl -s -H "$key" -X POST -d "{\"what\":\"$1\"}" "$B/conformance/expire" >/dev/null; }
log() {
    curl -s -H "$key" "$B/conformance/requests?clear=1" | "$CONFORMANCE_PYTHON" -c '
import json, sys
for e in json.load(sys.stdin)["requests"]:
    if e["path"].startswith(("/accounts/", "/o/authorize/", "/o/device/", "/o/device-confirm/", "/o/device-grant-status/", "/favicon")):
        continue
    extra = " ".join(k + "=" + e[k] for k in ("grant_type", "client_auth", "token_type_hint") if k in e)
    print("    server:", e["method"], e["path"], extra, "->", e["status"])'
}
home() { export TETHER_HOME="$work/home-$1"; mkdir -p "$TETHER_HOME"; }
# run TITLE EXPECTED -- command...: runs it, prints its output (tokens hidden) and exit status, and the server's log.
run() {
    local title="$1" expected="$2"
    shift 3
    echo "== $title"
    "$@" >"$work/out" 2>&1
    local status=$?
    sed -E 's/[A-Za-z0-9_-]{30,}/<token>/g; s/the code [A-Z0-9]{8}/the code <user code>/; s/^/    /' "$work/out"
    if [ -s "$work/out" ] && [ -n "$(tail -c1 "$work/out")" ]; then echo; fi
    echo "    exit $status"
    log
    echo "    expected: $expected"
}
device() { # device NAME CLIENT SCOPE [more login options]: device sign-in, approved on the device page after 3 s
    local name="$1" client="$2" scope="$3"
    shift 3
    ("$T" login --issuer "$I" --client-id "$client" --name "$name" --device \
        --device-authorization-endpoint "$I/device-authorization/" --scope "$scope" "$@" 2>"$work/device.err"
     echo "exit=$?" >>"$work/device.err") &
    local pid=$!
    sleep 3
    "$CONFORMANCE_PYTHON" "$here/approve-device.py" "$B" --from "$work/device.err" >/dev/null
    wait "$pid"
    grep -v '^exit=' "$work/device.err"
    return "$(sed -n 's/^exit=//p' "$work/device.err")"
}
setting '{"DEVICE_FLOW_INTERVAL": 1}'
log >/dev/null

home browser
run "browser sign-in, public client, discovery, default scopes" "exit 0, account from the ID token" -- \
    "$T" login --issuer "$I" --client-id tether-public --name dot --timeout 60
run "status" "connected, a***@example.com" -- "$T" status
run "token" "exit 0, no server request" -- "$T" token dot
run "request userinfo" "exit 0, the claims" -- "$T" request dot "$I/userinfo/"
run "request a resource without the read scope" "exit 1, 403 (insufficient scope)" -- "$T" request dot "$B/api/resource/"
run "logout (OpenID discovery has no revocation_endpoint)" "revoke_token, from the RFC 8414 document's endpoint" -- \
    "$T" logout dot

home confidential
run "client_secret_basic by default while the metadata lists post first" \
    "exit 5, client_auth=post (the server's first method)" -- "$T" login --issuer "$I" --client-id tether-basic \
    --client-secret-file "$work/tether-basic.secret" --name basic --scope "openid email offline_access read"
run "client_secret_basic chosen with --client-auth-method" "exit 0, client_auth=basic" -- \
    "$T" login --issuer "$I" --client-id tether-basic --client-secret-file "$work/tether-basic.secret" --name basic \
    --scope "openid email offline_access read" --client-auth-method client_secret_basic
run "client_secret_post client while the metadata lists both methods" \
    "exit 0, client_auth=post (the server's first method)" -- \
    "$T" login --issuer "$I" --client-id tether-post --client-secret-file "$work/tether-post.secret" --name post \
    --scope "openid email offline_access read"
setting '{"OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["client_secret_post"]}'
run "client_secret_post when it is the only method listed" "exit 0, client_auth=post" -- \
    "$T" login --issuer "$I" --client-id tether-post --client-secret-file "$work/tether-post.secret" --name post \
    --scope "openid email offline_access read"
setting '{"OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["client_secret_post", "client_secret_basic"]}'
run "logout after signing in again (method kept)" "exit 0, revoke_token with client_auth=basic" -- \
    sh -c "'$T' login basic --revocation-endpoint '$I/revoke_token/' >/dev/null 2>&1; '$T' logout basic"

home device
run "device flow with openid" "exit 0, connection saved without an ID token" -- \
    device dev1 tether-device "openid profile email offline_access read"
run "device flow without openid" "exit 0, connection saved without userinfo" -- \
    device dev2 tether-device "offline_access read"
run "device flow, confidential client" "exit 0, client_auth=basic with client_id in the body" -- \
    device dev3 tether-device-confidential "read" --client-secret-file "$work/tether-device-confidential.secret" \
    --client-auth-method client_secret_basic

setting '{"DEVICE_CODE_EXPIRE_SECONDS": 6, "DEVICE_FLOW_INTERVAL": 2}'
run "device code nobody approves (expires_in 6 s)" "exit 3 at the client's own deadline" -- \
    "$T" login --issuer "$I" --client-id tether-device --name dev4 --device \
    --device-authorization-endpoint "$I/device-authorization/" --scope "read"
setting '{"DEVICE_CODE_EXPIRE_SECONDS": 1800, "DEVICE_FLOW_INTERVAL": 1}'

home refresh
setting '{"ACCESS_TOKEN_EXPIRE_SECONDS": 8}'
"$T" login --issuer "$I" --client-id tether-public --name pub --scope "openid email offline_access read" >/dev/null 2>&1
log >/dev/null
sleep 8
run "8 concurrent token processes across an expiry" "exactly one refresh_token request" -- sh -c "
    for i in 1 2 3 4 5 6 7 8; do '$T' token pub >/dev/null 2>&1 & done; wait; echo done"
setting '{"REFRESH_TOKEN_REUSE_PROTECTION": true}'
cp -a "$TETHER_HOME" "$work/stale"
sleep 8
run "refresh (reuse protection on)" "exit 0" -- "$T" token pub
run "stale copy of the vault refreshes with the rotated token" "exit 3 needs sign-in; DOT revokes the family" -- \
    env TETHER_HOME="$work/stale" "$T" token pub
sleep 8
run "the current copy after the family was revoked" "exit 3 needs sign-in" -- "$T" token pub
setting '{"REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 30}'
"$T" login pub >/dev/null 2>&1
rm -rf "$work/stale"
cp -a "$TETHER_HOME" "$work/stale"
sleep 8
"$T" token pub >/dev/null 2>&1
log >/dev/null
run "stale copy within the grace period (30 s)" "exit 0, the same tokens again (HTTP 200)" -- \
    env TETHER_HOME="$work/stale" "$T" token pub
setting '{"REFRESH_TOKEN_REUSE_PROTECTION": false, "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0, "ACCESS_TOKEN_EXPIRE_SECONDS": 3600}'

home resources
"$T" login --issuer "$I" --client-id tether-public --name pub --scope "openid email offline_access read" >/dev/null 2>&1
log >/dev/null
expire access
run "a token the server expired early, DOT's default resource (403, no challenge)" \
    "403 without a challenge: no refresh today" -- "$T" request pub "$B/api/resource/"
run "the same at an RFC 6750 resource (401 invalid_token)" "one refresh, one retry, exit 0" -- \
    "$T" request pub "$B/api/resource-rfc6750/"
expire all
run "grant revoked at the server, then a 401" "exit 3, needs sign-in" -- "$T" request pub "$B/api/resource-rfc6750/"

home metadata
setting '{"OIDC_ENABLED": false}'
run "RFC 8414 metadata only (OIDC off), default scopes" \
    "exit 0, no openid by default without OpenID metadata, unknown account" -- \
    "$T" login --issuer "$I" --client-id tether-public --name plain1
run "RFC 8414 metadata only, no openid" "exit 0, unknown account" -- \
    "$T" login --issuer "$I" --client-id tether-public --name plain2 --scope "offline_access read"
run "status" "the account shown as unknown" -- "$T" status
run "logout (RFC 8414 metadata lists revocation)" "revoke_token" -- "$T" logout plain2
setting '{"OIDC_ENABLED": true}'
run "issuer with a trailing slash" "exit 5 with a clear message" -- \
    "$T" login --issuer "$I/" --client-id tether-public --name slash
setting '{"COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": true}'
run "RFC 9207 iss in the authorization response" "exit 0" -- \
    "$T" login --issuer "$I" --client-id tether-public --name iss
setting '{"COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": false}'
run "consent page, person denies" "exit 1, denied" -- env FORM_BROWSER_DECISION=deny \
    "$T" login --issuer "$I" --client-id tether-consent --name consent --timeout 30
