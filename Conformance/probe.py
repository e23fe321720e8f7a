#!/usr/bin/env python3
"""Records how the conformance server (django-oauth-toolkit) answers the requests an OAuth client makes, with every
token, code and secret redacted, as a Markdown transcript on standard output:

    $CONFORMANCE_PYTHON Conformance/probe.py STATE_FOLDER > transcript.md

STATE_FOLDER is the one start-server.sh printed (its server.env and clients.json are read). The probe switches the
server's settings at run time (POST /conformance/settings) and puts them back afterwards. FINDINGS.md quotes it.
"""

import base64
import hashlib
import json
import re
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests

STATE = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
ENV = dict(line.split("=", 1) for line in (STATE / "server.env").read_text().split() if "=" in line)
CLIENTS = json.loads((STATE / "clients.json").read_text())
BASE = CLIENTS["base"]
ISSUER = CLIENTS["issuer"]
ADMIN = {"X-Conformance-Key": (STATE / "admin-key").read_text().strip()}
SECRET_KEYS = {"access_token", "refresh_token", "id_token", "device_code", "code", "client_secret", "token",
               "code_verifier", "state", "nonce", "user_code", "verification_uri_complete"}
SHOWN_HEADERS = ("content-type", "www-authenticate", "cache-control", "pragma", "location")


def out(text=""):
    print(text)


def redact_value(key, value):
    if key in SECRET_KEYS and isinstance(value, str):
        return f"<{key}: {len(value)} chars>"
    return value


def redact_json(data):
    if isinstance(data, dict):
        return {key: redact_value(key, redact_json(value)) for key, value in data.items()}
    return data


def redact_url(url):
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    shown = "&".join(f"{k}={'…' if k in SECRET_KEYS or k == 'code_challenge' else v[0]}" for k, v in query.items())
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{shown}" if shown else "")


def show(title, response, form=None, auth=None):
    out(f"#### {title}")
    out("```")
    request = response.request
    out(f"{request.method} {redact_url(request.url)}")
    if auth:
        out(f"Authorization: {auth}")
    if form:
        out("&".join(f"{k}={'…' if k in SECRET_KEYS else v}" for k, v in form.items()))
    out(f"-> HTTP {response.status_code}")
    for header in SHOWN_HEADERS:
        if header in response.headers:
            value = response.headers[header]
            out(f"{header}: {redact_url(value) if header == 'location' else value}")
    body = response.text
    try:
        out(json.dumps(redact_json(json.loads(body)), indent=None))
    except ValueError:
        if body.strip():
            out(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()[:300])
    out("```")
    out()


def settings(**changes):
    return requests.post(f"{BASE}/conformance/settings", headers=ADMIN, json=changes, timeout=10).json()


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def browser():
    session = requests.Session()
    page = session.get(f"{BASE}/accounts/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    session.post(f"{BASE}/accounts/login/", timeout=10,
                 data={"csrfmiddlewaretoken": token, "username": "ada", "password": "lovelace", "next": "/"})
    return session


def authorize(session, client_id, scope, redirect_uri="http://127.0.0.1:50000/callback", challenge=None,
              title=None):
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
              "state": secrets.token_urlsafe(8), "nonce": secrets.token_urlsafe(8)}
    if challenge:
        params.update(code_challenge=challenge, code_challenge_method="S256")
    response = session.get(f"{ISSUER}/authorize/", params=params, allow_redirects=False, timeout=10)
    if title:
        show(title, response)
    location = response.headers.get("Location", "")
    return parse_qs(urlsplit(location).query).get("code", [None])[0], response


def token(form, title=None, basic=None):
    auth = (basic[0], basic[1]) if basic else None
    response = requests.post(f"{ISSUER}/token/", data=form, auth=auth, timeout=10)
    if title:
        show(title, response, form, "Basic …" if basic else None)
    try:
        return response.json(), response
    except ValueError:
        return {}, response


def code_tokens(session, client_id, scope, secret=None, basic=False, title=None):
    verifier, challenge = pkce()
    code, _ = authorize(session, client_id, scope, challenge=challenge)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1:50000/callback",
            "code_verifier": verifier}
    if not basic:
        form["client_id"] = client_id
        if secret:
            form["client_secret"] = secret
    return token(form, title, (client_id, secret) if basic else None)


def jwt_parts(jwt):
    header, payload, _ = jwt.split(".")
    decode = lambda part: json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))  # noqa: E731
    return decode(header), decode(payload)


def refresh(client_id, refresh_token, title=None, scope=None):
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
    if scope:
        form["scope"] = scope
    return token(form, title)


def device_start(client_id, scope, title=None, secret=None):
    form = {"client_id": client_id, "scope": scope}
    response = requests.post(f"{ISSUER}/device-authorization/", data=form,
                             auth=(client_id, secret) if secret else None, timeout=10)
    if title:
        show(title, response, form)
    return response.json()


def device_decide(user_code, action="accept"):
    session = browser()
    page = session.get(f"{ISSUER}/device/", timeout=10)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    page = session.post(f"{ISSUER}/device/", data={"csrfmiddlewaretoken": csrf, "user_code": user_code}, timeout=10)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    session.post(page.url, data={"csrfmiddlewaretoken": csrf, "action": action}, timeout=10)


def device_poll(client_id, device_code, title=None):
    return token({"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device_code,
                  "client_id": client_id}, title)


def main():
    original = settings()
    public, basic_id, post_id, device_id = "tether-public", "tether-basic", "tether-post", "tether-device"
    secret_basic = CLIENTS["clients"][basic_id]["secret"]
    secret_post = CLIENTS["clients"][post_id]["secret"]
    session = browser()

    out("## Discovery")
    for url in (f"{ISSUER}/.well-known/openid-configuration", f"{BASE}/.well-known/oauth-authorization-server/o"):
        document = requests.get(url, timeout=10).json()
        out(f"- `{urlsplit(url).path}`: keys {', '.join(sorted(document))}")
    out()

    out("## Authorization code + PKCE (public client, loopback redirect)")
    authorize(session, public, "openid profile email offline_access read", challenge=pkce()[1],
              title="Authorization request with PKCE, redirect http://127.0.0.1:50000/callback (registered without a port)")
    authorize(session, public, "openid", title="Authorization request without PKCE (PKCE_REQUIRED)")
    authorize(session, public, "openid", redirect_uri="http://localhost:50000/callback", challenge=pkce()[1],
              title="Redirect to localhost (registered: 127.0.0.1 and [::1])")
    authorize(session, public, "openid", redirect_uri="http://[::1]:50001/callback", challenge=pkce()[1],
              title="Redirect to [::1] on another port")
    authorize(session, public, "openid unknownscope", challenge=pkce()[1], title="Unknown scope")
    verifier, challenge = pkce()
    code, _ = authorize(session, public, "openid", challenge=challenge)
    token({"grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1:50000/callback",
           "code_verifier": pkce()[0], "client_id": public}, "Token request with the wrong code_verifier")
    settings(COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS=True)
    authorize(session, public, "openid", challenge=pkce()[1],
              title="Authorization response with COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS on (RFC 9207)")
    settings(COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS=False)
    tokens, _ = code_tokens(session, public, "openid profile email offline_access read",
                            title="Token request (authorization_code, public client)")
    if "id_token" in tokens:
        header, claims = jwt_parts(tokens["id_token"])
        out("ID token header: `" + json.dumps(header) + "`")
        out()
        out("ID token claims: `" + json.dumps(redact_json(claims)) + "`")
        out()
    access, first_refresh = tokens.get("access_token"), tokens.get("refresh_token")
    for path in ("/o/userinfo/", "/api/resource/", "/api/resource-rfc6750/"):
        show(f"GET {path} with the access token",
             requests.get(BASE + path, headers={"Authorization": f"Bearer {access}"}, timeout=10))
    show("GET /o/userinfo/ with a token that does not exist",
         requests.get(f"{ISSUER}/userinfo/", headers={"Authorization": "Bearer nonexistent"}, timeout=10))
    tokens2, _ = code_tokens(session, public, "offline_access read", title="Token request without openid")
    for path in ("/o/userinfo/",):
        show(f"GET {path} with a token granted without openid",
             requests.get(BASE + path, headers={"Authorization": f"Bearer {tokens2['access_token']}"}, timeout=10))

    out("## Refresh, rotation, reuse, grace")
    rotated, _ = refresh(public, first_refresh, "Refresh (ROTATE_REFRESH_TOKEN on)")
    if "id_token" in rotated:
        out("Claims of the ID token from the refresh: `" + json.dumps(redact_json(jwt_parts(rotated["id_token"])[1])) + "`")
        out()
    refresh(public, first_refresh, "The previous refresh token again (REFRESH_TOKEN_REUSE_PROTECTION off)")
    latest, _ = refresh(public, rotated["refresh_token"], "The rotated refresh token after the reuse (protection off)")
    refresh(public, latest["refresh_token"], "Refresh narrowing the scope to read", scope="read")

    settings(REFRESH_TOKEN_REUSE_PROTECTION=True)
    tokens, _ = code_tokens(session, public, "openid offline_access read")
    new, _ = refresh(public, tokens["refresh_token"])
    refresh(public, tokens["refresh_token"], "Reusing a rotated refresh token (REFRESH_TOKEN_REUSE_PROTECTION on)")
    refresh(public, new["refresh_token"], "The newest refresh token of that family after the reuse (protection on)")
    show("Its access token after the reuse", requests.get(
        f"{ISSUER}/userinfo/", headers={"Authorization": f"Bearer {new['access_token']}"}, timeout=10))

    settings(REFRESH_TOKEN_REUSE_PROTECTION=True, REFRESH_TOKEN_GRACE_PERIOD_SECONDS=30)
    tokens, _ = code_tokens(session, public, "openid offline_access read")
    new, _ = refresh(public, tokens["refresh_token"])
    again, _ = refresh(public, tokens["refresh_token"],
                       "Reusing the rotated refresh token within the grace period (30 s, protection on)")
    if "refresh_token" in again:
        out(f"Same access token as the first refresh: {again.get('access_token') == new.get('access_token')}; "
            f"same refresh token: {again.get('refresh_token') == new.get('refresh_token')}")
        out()
    settings(REFRESH_TOKEN_GRACE_PERIOD_SECONDS=0, REFRESH_TOKEN_REUSE_PROTECTION=False, ROTATE_REFRESH_TOKEN=False)
    tokens, _ = code_tokens(session, public, "openid offline_access read")
    refresh(public, tokens["refresh_token"], "Refresh with ROTATE_REFRESH_TOKEN off")
    settings(ROTATE_REFRESH_TOKEN=True)

    out("## Expiry")
    settings(ACCESS_TOKEN_EXPIRE_SECONDS=2)
    tokens, _ = code_tokens(session, public, "openid offline_access read", title="Token request with ACCESS_TOKEN_EXPIRE_SECONDS=2")
    time.sleep(3)
    for path in ("/o/userinfo/", "/api/resource/", "/api/resource-rfc6750/"):
        show(f"GET {path} with an expired access token",
             requests.get(BASE + path, headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10))
    settings(ACCESS_TOKEN_EXPIRE_SECONDS=original["ACCESS_TOKEN_EXPIRE_SECONDS"])

    out("## Errors at the token endpoint")
    token({"grant_type": "refresh_token", "refresh_token": "nonexistent", "client_id": public},
          "Unknown refresh token")
    token({"grant_type": "refresh_token", "refresh_token": "nonexistent", "client_id": "nobody"}, "Unknown client")
    token({"grant_type": "refresh_token", "refresh_token": "nonexistent"}, "Confidential client, wrong secret",
          basic=(basic_id, "wrong"))
    code_tokens(session, basic_id, "openid read", secret_post, title="tether-basic sending client_secret_post (refused by the conformance validator)")

    out("## Confidential clients")
    basic_tokens, _ = code_tokens(session, basic_id, "openid offline_access read", secret_basic, basic=True,
                                  title="client_secret_basic")
    code_tokens(session, post_id, "openid offline_access read", secret_post, title="client_secret_post")

    out("## Revocation (RFC 7009) and introspection (RFC 7662)")
    tokens, _ = code_tokens(session, public, "openid offline_access read")
    for title, form in (
        ("Revoke the refresh token (public client, client_id in the body)",
         {"token": tokens["refresh_token"], "token_type_hint": "refresh_token", "client_id": public}),
        ("Revoke it again", {"token": tokens["refresh_token"], "token_type_hint": "refresh_token", "client_id": public}),
        ("Revoke an unknown token", {"token": "nonexistent", "client_id": public}),
        ("Revoke without client_id", {"token": "nonexistent"}),
    ):
        response = requests.post(f"{ISSUER}/revoke_token/", data=form, timeout=10)
        show(title, response, form)
    show("The access token of the revoked refresh token", requests.get(
        f"{ISSUER}/userinfo/", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10))
    refresh(public, tokens["refresh_token"], "Refresh with the revoked refresh token")
    for title, value in (("Introspect an access token", basic_tokens["access_token"]),
                         ("Introspect a refresh token", basic_tokens["refresh_token"]),
                         ("Introspect an unknown token", "nonexistent")):
        response = requests.post(f"{ISSUER}/introspect/", data={"token": value}, auth=(basic_id, secret_basic),
                                 timeout=10)
        show(title + " (client_secret_basic of tether-basic)", response, {"token": value}, "Basic …")

    out("## Device authorization grant (RFC 8628)")
    settings(DEVICE_FLOW_INTERVAL=1)
    started = device_start(device_id, "openid profile email offline_access read", "Device authorization request")
    device_poll(device_id, started["device_code"], "Poll before approval")
    device_poll(device_id, started["device_code"], "Poll again at once (no slow_down from DOT)")
    device_decide(started["user_code"])
    device_tokens, _ = device_poll(device_id, started["device_code"], "Poll after approval (scope includes openid)")
    device_poll(device_id, started["device_code"], "Poll once more after the tokens were issued")
    refreshed, _ = refresh(device_id, device_tokens["refresh_token"], "Refresh of a device-grant token (openid)")
    if "id_token" in refreshed:
        out("Claims of that ID token: `" + json.dumps(redact_json(jwt_parts(refreshed["id_token"])[1])) + "`")
        out()
    started = device_start(device_id, "read", "Device authorization without openid")
    device_decide(started["user_code"], "deny")
    device_poll(device_id, started["device_code"], "Poll after the person denied")
    device_poll(device_id, "nonexistent", "Poll with an unknown device_code")
    device_start("nobody", "read", "Device authorization with an unknown client")
    device_start("tether-public", "read", "Device authorization with a client registered for the code grant")
    settings(DEVICE_CODE_EXPIRE_SECONDS=3)
    started = device_start(device_id, "read", "Device authorization with DEVICE_CODE_EXPIRE_SECONDS=3")
    time.sleep(4)
    device_poll(device_id, started["device_code"], "Poll after the device code expired (nobody entered it)")
    settings(**{key: original[key] for key in ("DEVICE_FLOW_INTERVAL", "DEVICE_CODE_EXPIRE_SECONDS")})


if __name__ == "__main__":
    main()
