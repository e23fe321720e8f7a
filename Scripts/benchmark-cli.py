#!/usr/bin/env python3
"""Measures the `tether` command as scripts use it, against `tether dev-provider` on 127.0.0.1.

    swift build -c release --product tether-cli && swift build -c release --product tether
    python3 Scripts/benchmark-cli.py .build/release/tether

1. `tether token` with a fresh token: wall time of one process (start, read the vault, print), 200 runs.
2. Eight `tether token` processes started together after the token expired: wall time until all have printed,
   the number of refreshes the provider saw (expected: 1) and the number of distinct tokens printed (expected: 1),
   10 rounds.

Everything runs in a temporary TETHER_HOME, which is removed at the end; the provider is stopped.
Needs only the Python standard library.
"""

import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

LIFETIME = 4
# The provider takes its admin key from the environment, so it stays out of the process list.
ADMIN_KEY = secrets.token_urlsafe(32)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(title, values, unit):
    print(title)
    print(
        "    median %.1f %s, p90 %.1f, p99 %.1f, min %.1f  (n = %d)"
        % (statistics.median(values), unit, percentile(values, 0.9), percentile(values, 0.99), min(values), len(values))
    )


def counters(issuer):
    request = urllib.request.Request(issuer + "/admin/counters", headers={"X-Tether-Admin": ADMIN_KEY})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def approve_device_code(issuer, code):
    page_url = issuer + "/device?" + urllib.parse.urlencode({"user_code": code})
    with urllib.request.urlopen(page_url, timeout=10) as response:
        page = response.read().decode()
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    fields.update({"user_code": code, "username": "ada", "password": "lovelace", "decision": "allow"})
    action = re.search(r'<form[^>]*action="([^"]+)"', page)
    target = urllib.parse.urljoin(page_url, action.group(1)) if action else page_url
    data = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(urllib.request.Request(target, data=data), timeout=10) as response:
        answer = response.read().decode()
    if "Device connected" not in answer:
        raise SystemExit("benchmark-cli: the verification page did not approve the code")


def main(argv):
    tether = os.path.abspath(argv[1] if len(argv) > 1 else ".build/release/tether")
    home = tempfile.mkdtemp(prefix="tether-bench-cli-")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_") and k != "BROWSER"}
    environment["TETHER_HOME"] = home
    provider_environment = dict(environment, TETHER_DEV_ADMIN_KEY=ADMIN_KEY)
    provider = subprocess.Popen(
        [tether, "dev-provider", "--port", "0", "--access-token-lifetime", str(LIFETIME)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=provider_environment,
    )
    try:
        issuer = provider.stdout.readline().split()[-1]
        login = subprocess.Popen(
            [tether, "login", "dev", "--issuer", issuer, "--device"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        code = None
        while code is None:
            line = login.stderr.readline()
            if not line:
                raise SystemExit("benchmark-cli: login ended before showing a code")
            if "enter the code" in line:
                code = line.split()[-1]
        try:
            approve_device_code(issuer, code)
            if login.wait(timeout=60) != 0:
                raise SystemExit("benchmark-cli: login failed")
        finally:
            if login.poll() is None:
                login.kill()

        def token():
            return subprocess.run([tether, "token"], capture_output=True, text=True, env=environment, check=True)

        token()
        fresh = []
        for _ in range(200):
            # Keep the token fresh: refresh outside the measured runs when it nears expiry.
            if len(fresh) % 20 == 0:
                subprocess.run([tether, "token", "--force-refresh"], capture_output=True, env=environment, check=True)
            start = time.perf_counter()
            token()
            fresh.append((time.perf_counter() - start) * 1000)
        report("tether token, fresh token (one process: start, read the vault, print)", fresh, "ms")

        walls = []
        refreshes = []
        distinct = []
        for _ in range(10):
            time.sleep(LIFETIME + 0.2)
            before = counters(issuer)["events"].get("refreshes", 0)
            start = time.perf_counter()
            processes = [
                subprocess.Popen([tether, "token"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
                for _ in range(8)
            ]
            outputs = [process.communicate(timeout=60) for process in processes]
            walls.append((time.perf_counter() - start) * 1000)
            if any(process.returncode != 0 for process in processes):
                raise SystemExit("benchmark-cli: a token process failed: %s" % [err for _, err in outputs])
            refreshes.append(counters(issuer)["events"].get("refreshes", 0) - before)
            distinct.append(len({out.strip() for out, _ in outputs}))
        report("8 concurrent tether token processes after expiry (wall time until all printed)", walls, "ms")
        print("    refreshes at the provider per round: %s (expected 1 each)" % refreshes)
        print("    distinct tokens printed per round: %s (expected 1 each)" % distinct)
        return 0 if set(refreshes) == {1} and set(distinct) == {1} else 1
    finally:
        provider.terminate()
        provider.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
