"""Records every request the server answers, without secrets, for tests to read at GET /conformance/requests.

Each entry: method, path, the grant type of token requests, how the client authenticated (basic, post or none),
whether a bearer token was sent, and the status. A test counts refreshes with it (for example 8 concurrent
`tether token` processes across an expiry must cause exactly one `refresh_token` request).
"""

import logging
import threading
import time

log = logging.getLogger("conformance")

_lock = threading.Lock()
_entries = []


def entries():
    with _lock:
        return list(_entries)


def clear():
    with _lock:
        _entries.clear()


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        entry = {"time": round(time.time(), 3), "method": request.method, "path": request.path}
        authorization = request.META.get("HTTP_AUTHORIZATION", "")
        if request.method == "POST" and request.content_type == "application/x-www-form-urlencoded":
            body = request.POST
            if "grant_type" in body:
                entry["grant_type"] = body["grant_type"]
            if "token_type_hint" in body:
                entry["token_type_hint"] = body["token_type_hint"]
            if authorization.lower().startswith("basic "):
                entry["client_auth"] = "basic"
            elif body.get("client_secret"):
                entry["client_auth"] = "post"
            elif body.get("client_id"):
                entry["client_auth"] = "none"
        if authorization.lower().startswith("bearer "):
            entry["bearer"] = True
        response = self.get_response(request)
        entry["status"] = response.status_code
        if not request.path.startswith("/conformance/"):
            with _lock:
                _entries.append(entry)
            log.info(
                "%s %s%s -> %s",
                entry["method"],
                entry["path"],
                " " + entry["grant_type"] if "grant_type" in entry else "",
                entry["status"],
            )
        return response
