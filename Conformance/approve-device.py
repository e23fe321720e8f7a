#!/usr/bin/env python3
"""Approves (or denies) a device-flow user code on the conformance server's device page, as the person would:

    approve-device.py BASE_URL USER_CODE
    approve-device.py BASE_URL --from FILE     wait (up to 30 s) for a user code to appear in FILE, e.g. the
                                               standard error of `tether login --device`, then approve it

BASE_URL is http://127.0.0.1:PORT. Signs in through /accounts/login/ (ada / lovelace), posts the code to DOT's
/o/device/ page and answers its accept/deny page. Exits 0 when DOT shows the grant's new status.

Environment: FORM_BROWSER_USERNAME, FORM_BROWSER_PASSWORD, DEVICE_DECISION (accept, the default, or deny).
"""

import os
import re
import sys
import time
from html.parser import HTMLParser
from urllib.parse import urljoin

import requests

# DOT's default user code generator (oauth2_provider.utils.user_code_generator): 8 characters of 0-9A-V, no
# separator; a client may show it as XXXX-XXXX (RFC 8628 §6.1), so a hyphen in the middle is dropped.
CODE = re.compile(r"\b([A-Z0-9]{4}-?[A-Z0-9]{4})\b")


class Inputs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inputs = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name"):
            self.inputs[attrs["name"]] = attrs.get("value") or ""


def inputs(html):
    parser = Inputs()
    parser.feed(html)
    return parser.inputs


def fail(reason):
    sys.stderr.write("approve-device: " + reason + "\n")
    return 1


def main(argv):
    if len(argv) == 4 and argv[2] == "--from":
        deadline = time.monotonic() + 30
        code, text = None, ""
        while code is None and time.monotonic() < deadline:
            try:
                with open(argv[3], errors="replace") as handle:
                    text = re.sub(r"\x1b\[[0-9;]*m", "", handle.read())
                match = CODE.search(text.split("code", 1)[-1]) if "code" in text.lower() else None
                code = match.group(1) if match else None
            except FileNotFoundError:
                pass
            if code is None:
                if "\nexit=" in "\n" + text:
                    break  # the client gave up (cli-trials.sh appends its exit status)
                time.sleep(0.2)
        if code is None:
            return fail("no user code appeared in " + argv[3])
    elif len(argv) == 3:
        code = argv[2]
    else:
        return fail("usage: approve-device.py BASE_URL (USER_CODE | --from FILE)")
    base = argv[1].rstrip("/")
    decision = os.environ.get("DEVICE_DECISION", "accept")
    session = requests.Session()

    page = session.get(base + "/accounts/login/", timeout=10)
    form = inputs(page.text)
    form.update(username=os.environ.get("FORM_BROWSER_USERNAME", "ada"),
                password=os.environ.get("FORM_BROWSER_PASSWORD", "lovelace"), next="/o/device/")
    page = session.post(base + "/accounts/login/", data=form, timeout=10, headers={"Referer": base})
    if "/o/device/" not in page.url:
        return fail(f"signing in failed (at {page.url}, HTTP {page.status_code})")
    form = inputs(page.text)
    form["user_code"] = code.replace("-", "")
    page = session.post(page.url, data=form, timeout=10, headers={"Referer": page.url})
    if "device-confirm" not in page.url:
        return fail(f"the user code was refused (HTTP {page.status_code}): " + re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.text)).strip()[:300])
    form = inputs(page.text)
    form["action"] = decision
    page = session.post(page.url, data=form, timeout=10, headers={"Referer": page.url})
    if page.status_code != 200 or "device-grant-status" not in page.url:
        return fail(f"answering the device page failed (HTTP {page.status_code})")
    print(f"{decision}: {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
