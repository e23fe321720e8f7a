#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/), shaped like real answers of the providers
Tether supports. The secret values are the marker the targets look for in error descriptions; none is real.
The vault seeds are written by the replay tool (`TetherFuzz write-vault-seeds`), which seals them with the
library's own code. Run from the repository root: python3 Fuzz/make-seeds.py"""
import base64
import json
import os

MARK = "fuzzSECRETm4rker"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def b64(data):
    return base64.urlsafe_b64encode(data.encode() if isinstance(data, str) else data).rstrip(b"=").decode()


# Callback URLs (RFC 6749 §4.1.2, RFC 9207): the targets' redirect URI, state and issuer.
REDIRECT = "http://127.0.0.1:53682/callback"
STATE = "st-" + MARK
callbacks = {
    "google": f"{REDIRECT}?state={STATE}&code=4/0AeanS0a-{MARK}&scope=email%20openid&authuser=0&prompt=consent",
    "issuer": f"{REDIRECT}?code=M.C5_BAY.2.U.{MARK}&state={STATE}&iss=https%3A%2F%2Fissuer.example",
    "denied": f"{REDIRECT}?error=access_denied&error_description=The+user+denied&state={STATE}",
    "error": f"{REDIRECT}?error=invalid_scope&error_description=AADSTS70011%3A+bad+scope&state={STATE}"
    "&iss=https%3A%2F%2Fissuer.example",
    "wrong-state": f"{REDIRECT}?code={MARK}&state=other",
    "wrong-issuer": f"{REDIRECT}?code={MARK}&state={STATE}&iss=https%3A%2F%2Fevil.example",
    "wrong-port": f"http://127.0.0.1:1/callback?code={MARK}&state={STATE}",
    "fragment": f"{REDIRECT}?state={STATE}&code={MARK}&code=second#frag",
}
for name, url in callbacks.items():
    write("callback", name, url)

# Token responses: first byte = status index (0 200, 1 400, 2 401, 3 429, 4 503) | 0x08 text/html | 0x10
# Retry-After | 0x80 ID token as access token (Firebase).
tokens = {
    "google": (0, {"access_token": "ya29.a0AfB_" + MARK, "expires_in": 3599, "refresh_token": "1//0g" + MARK,
                   "scope": "openid https://www.googleapis.com/auth/calendar.readonly", "token_type": "Bearer",
                   "id_token": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0." + MARK}),
    "microsoft": (0, {"token_type": "Bearer", "scope": "Calendars.Read User.Read", "expires_in": 4736,
                      "ext_expires_in": 4736, "access_token": "EwBwA8l6BAAU" + MARK,
                      "refresh_token": "M.C507_BAY.0.U." + MARK}),
    "firebase": (0x80, {"id_token": "eyJhbGciOiJSUzI1NiJ9.e30." + MARK, "refresh_token": "AMf-vB" + MARK,
                        "expires_in": "3600", "token_type": "Bearer", "user_id": "tRcfmLH7", "project_id": "12"}),
    "no-type": (0, {"access_token": MARK, "expires_in": 3600}),
    "mac": (0, {"access_token": MARK, "token_type": "mac", "expires_in": -1}),
    "invalid-grant": (1, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}),
    "aad": (1, {"error": "invalid_grant", "error_description": "AADSTS70008: The refresh token has expired.",
                "error_codes": [70008], "timestamp": "2025-03-03 10:00:00Z", "trace_id": "0a1b",
                "correlation_id": "2c3d", "suberror": "bad_token"}),
    "unauthorized": (2, {"error": "invalid_client"}),
    "slow-down": (3 | 0x10, {"error": "slow_down"}),
}
for name, (selector, body) in tokens.items():
    write("token", name, bytes([selector]) + json.dumps(body).encode())
write("token", "html-503", bytes([4 | 0x08]) + b"<html><body>Service Unavailable</body></html>")
write("token", "truncated", bytes([0]) + json.dumps(tokens["google"][1]).encode()[:90])

# JWS: first byte 0 = compact token as is, 1 = header NUL payload (encoded by the target).
header = {"alg": "RS256", "kid": "1f40f0a8ef3d880978dc82f25c3ec317c6a5b781", "typ": "JWT"}
claims = {"iss": "https://accounts.google.com", "azp": "client.apps.googleusercontent.com",
          "aud": "client.apps.googleusercontent.com", "sub": "108234567890123456789", "email": "a@example.com",
          "email_verified": True, "nonce": MARK, "iat": 1741000000, "exp": 1741003600}
ms_claims = {"aud": ["api://tether", "other"], "iss": "https://login.microsoftonline.com/tid/v2.0",
             "iat": 1741000000, "nbf": 1741000000, "exp": 1741003600, "auth_time": 1741000000,
             "oid": "00000000-0000-0000-66f3-3332eca7ea81", "tid": "9188040d", "ver": "2.0", "name": MARK}
write("jws", "google-compact", b"\x00" + f"{b64(json.dumps(header))}.{b64(json.dumps(claims))}.{b64(MARK * 4)}".encode())
write("jws", "google-parts", b"\x01" + json.dumps(header).encode() + b"\x00" + json.dumps(claims).encode())
write("jws", "microsoft-parts", b"\x01" + json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": "k"}).encode() + b"\x00"
      + json.dumps(ms_claims).encode())
write("jws", "crit", b"\x01" + json.dumps({"alg": "ES256", "crit": ["b64"]}).encode() + b"\x00{}")
write("jws", "two-parts", b"\x00" + f"{b64(json.dumps(header))}.{b64(MARK)}".encode())

# Discovery documents (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), issuer https://issuer.example.
ISS = "https://issuer.example"
write("discovery", "oidc", json.dumps({
    "issuer": ISS, "authorization_endpoint": ISS + "/o/oauth2/v2/auth",
    "device_authorization_endpoint": ISS + "/device/code", "token_endpoint": ISS + "/token",
    "userinfo_endpoint": ISS + "/v1/userinfo", "revocation_endpoint": ISS + "/revoke",
    "jwks_uri": ISS + "/oauth2/v3/certs", "response_types_supported": ["code", "token", "id_token"],
    "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
    "scopes_supported": ["openid", "email", "profile", "offline_access"],
    "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
    "code_challenge_methods_supported": ["plain", "S256"],
    "authorization_response_iss_parameter_supported": True}))
write("discovery", "tenant-template", json.dumps({
    "issuer": ISS + "/{tenantid}/v2.0", "authorization_endpoint": ISS + "/common/oauth2/v2.0/authorize",
    "token_endpoint": ISS + "/common/oauth2/v2.0/token", "jwks_uri": ISS + "/common/discovery/v2.0/keys",
    "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"]}))
write("discovery", "rfc8414", json.dumps({
    "issuer": ISS, "token_endpoint": ISS + "/token", "authorization_endpoint": "http://issuer.example/authorize"}))
write("discovery", "other-issuer", json.dumps({"issuer": "https://evil.example", "token_endpoint": ISS + "/t"}))

# WWW-Authenticate values (RFC 6750 §3, RFC 9110 §11.6.1, RFC 9449 §7.1).
challenges = {
    "bearer": 'Bearer realm="example", error="invalid_token", error_description="The access token expired"',
    "scope": 'Bearer error="insufficient_scope", scope="Calendars.Read https://graph.microsoft.com/.default"',
    "graph": 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", '
             'client_id="00000003-0000-0000-c000-000000000000"',
    "several": 'Basic realm="api", DPoP algs="ES256 PS256", Bearer error="invalid_token", Negotiate',
    "token68": 'Negotiate YIIFjwYGKwYBBQUCoIIFgzCCBX+gMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYKKwYBBAGCNwICHg==',
    "escaped": 'Bearer error_description="quoted \\"text\\" and \\\\ backslash", claims="eyJhY2Nlc3NfdG9rZW4iOnt9fQ"',
}
for name, value in challenges.items():
    write("www-authenticate", name, value)

# Calendar pages: first byte 0 = Google Calendar events.list, 1 = Microsoft Graph calendarView / delta.
google = {"kind": "calendar#events", "summary": "a@example.com", "timeZone": "Europe/Berlin",
          "nextPageToken": "CigKGjVmMXMwbnEy", "items": [
              {"kind": "calendar#event", "id": "5f1s0nq2c3k8", "status": "confirmed",
               "htmlLink": "https://www.google.com/calendar/event?eid=NWYx", "summary": "Review " + MARK,
               "description": "Zoom passcode " + MARK + " <b>draft</b><br>&amp;", "location": "Room " + MARK,
               "organizer": {"email": "bob@example.com", "displayName": "Bob"},
               "start": {"dateTime": "2025-03-03T10:00:00+01:00", "timeZone": "Europe/Berlin"},
               "end": {"dateTime": "2025-03-03T11:00:00+01:00", "timeZone": "Europe/Berlin"},
               "recurringEventId": "5f1s0nq2", "updated": "2025-02-27T16:40:02.311Z"},
              {"kind": "calendar#event", "id": "0a9b8c", "status": "tentative", "summary": MARK,
               "start": {"date": "2025-03-04"}, "end": {"date": "2025-03-05"}},
              {"kind": "calendar#event", "id": "bad-date", "summary": MARK, "start": {"dateTime": "tomorrow"},
               "end": {"date": "2025-13-45"}},
              {"kind": "calendar#event", "id": "7k2m4n6p8q", "status": "cancelled"}]}
graph = {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users('x')/calendarView",
         "@odata.nextLink": "https://graph.microsoft.com/v1.0/me/calendarView?$skiptoken=abc", "value": [
             {"id": "AAMkAGI2TQ4ZmEAAA=", "subject": "Design " + MARK, "isAllDay": False, "isCancelled": False,
              "showAs": "busy", "type": "occurrence", "seriesMasterId": "master1",
              "start": {"dateTime": "2025-03-03T10:00:00.0000000", "timeZone": "W. Europe Standard Time"},
              "end": {"dateTime": "2025-03-03T11:00:00.0000000", "timeZone": "W. Europe Standard Time"},
              "location": {"displayName": "Room " + MARK},
              "body": {"contentType": "html", "content": "<html><body><p>PIN " + MARK + "&nbsp;</p></body></html>"},
              "organizer": {"emailAddress": {"name": "Grace", "address": "grace@example.com"}},
              "lastModifiedDateTime": "2025-02-27T16:40:02.3110000Z",
              "webLink": "https://outlook.office365.com/owa/?itemid=occ1"},
             {"id": "offsite", "subject": MARK, "isAllDay": True,
              "start": {"dateTime": "2025-03-04T00:00:00.0000000", "timeZone": "UTC"},
              "end": {"dateTime": "2025-03-05T00:00:00.0000000", "timeZone": "UTC"},
              "originalStartTimeZone": "Pacific Standard Time"},
             {"id": "bad", "subject": MARK, "start": {"dateTime": "not a time", "timeZone": "Mars/Olympus"}},
             {"id": "gone", "@removed": {"reason": "deleted"}}]}
write("calendar", "google", b"\x00" + json.dumps(google).encode())
write("calendar", "graph", b"\x01" + json.dumps(graph).encode())
write("calendar", "graph-delta", b"\x01" + json.dumps({
    "@odata.deltaLink": "https://graph.microsoft.com/v1.0/me/calendarView/delta?$deltatoken=R0usmci39",
    "value": [{"id": "gone", "@removed": {"reason": "deleted"}}]}).encode())
