#!/usr/bin/env python3
"""A browser stand-in for sign-ins against the conformance server, usable as the BROWSER command:

    BROWSER="$CONFORMANCE_PYTHON Conformance/form-browser.py" tether login --issuer "$CONFORMANCE_ISSUER" ...

Opens the authorization URL (the last argument) with `requests`, follows the redirects to the sign-in form, posts
the user name and password with the form's CSRF token, answers DOT's consent page when one is shown, and follows the
redirects until one leaves the server for a loopback redirect URI (http://127.0.0.1 or http://[::1] on another
port), which it then opens so the waiting client receives the code. Exits 0 when the redirect was delivered,
1 with a one-line reason on standard error otherwise. Everything must finish within 30 seconds.

Environment:
    FORM_BROWSER_USERNAME   default ada
    FORM_BROWSER_PASSWORD   default lovelace
    FORM_BROWSER_DECISION   allow (default) or deny, for the consent page
    FORM_BROWSER_TRACE      a file that receives one line per request (method, URL without query values, status)
"""

import os
import re
import sys
import time
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit, urlunsplit

import requests

DEADLINE = time.monotonic() + 30


class Forms(HTMLParser):
    """The first form's action and its inputs (name -> value)."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action"), "inputs": {}})
        elif tag == "input" and self.forms and attrs.get("name"):
            if attrs.get("type") != "submit":
                self.forms[-1]["inputs"][attrs["name"]] = attrs.get("value") or ""


PUBLIC_PARAMETERS = {"response_type", "client_id", "redirect_uri", "scope", "code_challenge_method", "prompt", "iss",
                     "error", "error_description"}


def redact(url):
    """The URL with the values of codes, state, nonce, challenges and the like replaced by `…`."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = "&".join(key + "=" + (value if key in PUBLIC_PARAMETERS else "…") for key, value in pairs)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("form-browser: usage: form-browser.py URL\n")
        return 1
    url = argv[-1]
    server = urlsplit(url).netloc
    username = os.environ.get("FORM_BROWSER_USERNAME", "ada")
    password = os.environ.get("FORM_BROWSER_PASSWORD", "lovelace")
    decision = os.environ.get("FORM_BROWSER_DECISION", "allow")
    trace_path = os.environ.get("FORM_BROWSER_TRACE")
    trace = open(trace_path, "a") if trace_path else None
    session = requests.Session()

    def send(method, target, data=None):
        remaining = max(0.5, DEADLINE - time.monotonic())
        response = session.request(method, target, data=data, allow_redirects=False, timeout=remaining,
                                   headers={"Referer": target})
        if trace:
            trace.write(f"{method} {redact(target)} -> {response.status_code}\n")
        return response

    method, data, signed_in, answered = "GET", None, False, False
    for _ in range(20):
        if time.monotonic() > DEADLINE:
            break
        parts = urlsplit(url)
        if parts.netloc != server:
            if parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1", "localhost"):
                response = send("GET", url)
                return 0 if response.status_code < 400 else fail(f"the client answered HTTP {response.status_code}")
            return fail("redirected away from loopback to " + redact(url))
        response = send(method, url, data)
        method, data = "GET", None
        if response.is_redirect:
            url = urljoin(url, response.headers["Location"])
            continue
        if response.status_code != 200:
            return fail(f"{redact(url)} answered HTTP {response.status_code}: {response.text[:200]}")
        parser = Forms()
        parser.feed(response.text)
        if not parser.forms:
            return fail(f"{redact(url)} shows no form: {re.sub(r'<[^>]+>', ' ', response.text)[:200]}")
        form = parser.forms[0]
        inputs = dict(form["inputs"])
        if "username" in inputs or "password" in inputs or 'id="username"' in response.text:
            if signed_in:
                return fail("the sign-in form came back: wrong user name or password")
            inputs.update(username=username, password=password)
            signed_in = True
        else:
            if answered:
                return fail("the consent page came back")
            if decision == "allow":
                inputs["allow"] = "Authorize"
            answered = True
        url = urljoin(url, form["action"] or url)
        method, data = "POST", inputs
    return fail("too many steps or out of time")


def fail(reason):
    sys.stderr.write("form-browser: " + reason.replace("\n", " ") + "\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
