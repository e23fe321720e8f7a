#!/usr/bin/env python3
"""Credential helpers side by side: `tether token` and the gcloud helpers, each a whole process, against the same
development provider (docs/benchmarks.md, "Credential helpers").

    swift build -c release --static-swift-stdlib --product tether-cli
    swift build -c release --static-swift-stdlib --product tether
    python3 bench/helpers.py [--tether .build/release/tether] [--quick] [--fresh-only] [--only TEXT] [--runs N]
                             [--json FILE]

Scenarios, for every row of HELPERS:
1. fresh token: wall time of one process (start, read what it keeps, print), median of 50 runs (10 for the gcloud
   tools, which take half a second each). The rows take turns, one process each, so that a change in the machine's
   load during the run falls on every row alike; the first row, `/bin/true`, is the floor: what starting any
   process and reading its output costs from here;
2. across an expiry: one process started after the token it holds expired, which must refresh;
3. 8 concurrent callers across an expiry: 8 processes started together after the token expired: wall time until
   all have printed, refreshes the provider counted, distinct tokens printed, failed processes.

Two `tether dev-provider` instances on 127.0.0.1 (one binary): tokens live an hour on the first (fresh-token runs)
and EXPIRING seconds on the second (the expiry scenarios). Both run without refresh-token rotation, as Google's token
endpoint, which the gcloud tools are written for, does not rotate. Every tool keeps its state in a temporary folder
(TETHER_HOME, CLOUDSDK_CONFIG and HOME for the gcloud tools); nothing of the user's is read or written. Needs only
the Python standard library; the gcloud rows are skipped when gcloud is not installed.
"""

import argparse
import importlib.util
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ADMIN_KEY = secrets.token_urlsafe(32)
EXPIRING = 6  # seconds an access token lives on the provider of the expiry scenarios
PROCESSES = 8


class Helper:
    """One row: a command line that prints a token, the tool whose state it uses, its standard input, its runs."""

    def __init__(self, name, command, tool, stdin=None, runs=50, expiry_runs=5, concurrent_rounds=3):
        self.name, self.command, self.tool, self.stdin = name, command, tool, stdin
        self.runs, self.expiry_runs, self.concurrent_rounds = runs, expiry_runs, concurrent_rounds


def helpers(tether):
    """The rows. A command of `tether` that prints a credential is one more line here (the `tether` tool's state is
    a TETHER_HOME signed in to the provider as `dev`), such as
        Helper("tether git-credential get", [tether, "git-credential", "get"], "tether",
               stdin="protocol=https\\nhost=example.com\\n\\n"),
    and `token_of` below finds the token in what it prints."""
    return [
        Helper("/bin/true (starting a process)", ["/bin/true"], "none", expiry_runs=0, concurrent_rounds=0),
        Helper("tether token", [tether, "token"], "tether"),
        Helper("tether git-credential get", [tether, "git-credential", "get"], "tether",
               stdin="protocol=https\nhost=git.example.com\n\n"),
        Helper("tether kube-credential (ID token)", [tether, "kube-credential", "dev"], "tether"),
        Helper("tether docker-credential get", [tether, "docker-credential", "get"], "tether",
               stdin="https://registry.example.com\n"),
        Helper("tether token --format bazel get", [tether, "token", "dev", "--format", "bazel", "get"], "tether",
               stdin='{"uri":"https://api.example.com/v1/x"}'),
        Helper("tether token --format terraform get",
               [tether, "token", "dev", "--format", "terraform", "get", "app.example.com", "--host", "app.example.com"],
               "tether"),
        Helper("gcloud auth print-access-token", ["gcloud", "auth", "print-access-token"], "gcloud", runs=10,
               expiry_runs=3, concurrent_rounds=2),
        Helper("gke-gcloud-auth-plugin", ["gke-gcloud-auth-plugin"], "gcloud", runs=10, expiry_runs=3,
               concurrent_rounds=2),
        Helper("docker-credential-gcloud get", ["docker-credential-gcloud", "get"], "gcloud", stdin="https://gcr.io\n",
               runs=10, expiry_runs=3, concurrent_rounds=2),
    ]


def token_of(output):
    """The token in what a helper printed: the plain line, an ExecCredential's `status.token`, a Docker credential's
    `Secret`, a git credential's `password`, Terraform's `token` or Bazel's `Authorization` header."""
    text = output.strip()
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict):
        bazel = ((document.get("headers") or {}).get("Authorization") or [""])[0].removeprefix("Bearer ")
        return ((document.get("status") or {}).get("token") or document.get("Secret") or document.get("accessToken")
                or document.get("token") or bazel)
    for line in text.splitlines():
        if line.startswith("password="):
            return line[len("password="):]
    return text


# MARK: Provider and tools


class Provider:
    def __init__(self, tether, lifetime):
        environment = clean_environment()
        environment["TETHER_DEV_ADMIN_KEY"] = ADMIN_KEY
        self.process = subprocess.Popen(
            [tether, "dev-provider", "--port", "0", "--access-token-lifetime", str(lifetime),
             "--no-rotate-refresh-tokens"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment,
        )
        self.issuer = self.process.stdout.readline().split()[-1]
        with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration", timeout=10) as response:
            self.token_endpoint = json.load(response)["token_endpoint"]

    def admin(self, path, body=None):
        request = urllib.request.Request(
            self.issuer + "/admin/" + path,
            data=None if body is None else json.dumps(body).encode(),
            headers={"X-Tether-Admin": ADMIN_KEY, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def refreshes(self):
        return self.admin("counters")["events"].get("refreshes", 0)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def clean_environment():
    return {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "CLOUDSDK_")) and k != "BROWSER"}


def tether_environment(tether, provider, folder):
    """A TETHER_HOME signed in to `provider` as `dev` through the device flow, as a user would."""
    specification = importlib.util.spec_from_file_location("benchmark_cli", os.path.join(ROOT, "Scripts",
                                                                                          "benchmark-cli.py"))
    cli = importlib.util.module_from_spec(specification)
    specification.loader.exec_module(cli)
    environment = clean_environment()
    environment["TETHER_HOME"] = os.path.join(folder, "tether-home")
    environment.pop("DBUS_SESSION_BUS_ADDRESS", None)
    login = subprocess.Popen([tether, "login", "dev", "--issuer", provider.issuer, "--device",
                              "--git-host", "git.example.com", "--docker-registry", "registry.example.com"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
    code = None
    while code is None:
        line = login.stderr.readline()
        if not line:
            raise SystemExit("helpers: tether login ended before showing a code")
        if "enter the code" in line:
            code = line.split()[-1]
    cli.approve_device_code(provider.issuer, code)
    if login.wait(timeout=60) != 0:
        raise SystemExit("helpers: tether login failed")
    return environment


def gcloud_environment(provider, folder):
    """A CLOUDSDK_CONFIG whose token host is `provider`, with a refresh token of a new grant for ada."""
    environment = clean_environment()
    environment["CLOUDSDK_CONFIG"] = os.path.join(folder, "gcloud-config")
    environment["HOME"] = os.path.join(folder, "gcloud-home")
    os.makedirs(environment["HOME"], exist_ok=True)
    environment["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1"
    environment["CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK"] = "1"
    for key, value in [("auth/token_host", provider.token_endpoint), ("auth/client_id", "tether-dev-client"),
                       ("auth/client_secret", "unused"), ("core/disable_usage_reporting", "true")]:
        subprocess.run(["gcloud", "config", "set", key, value], check=True, capture_output=True, env=environment)
    grant = provider.admin("tokens", {"username": "ada"})
    subprocess.run(["gcloud", "auth", "activate-refresh-token", "ada@example.com", grant["refresh_token"]],
                   check=True, capture_output=True, env=environment)
    return environment


# MARK: Scenarios


def run_once(helper, environment):
    start = time.perf_counter()
    result = subprocess.run(helper.command, input=helper.stdin, capture_output=True, text=True, env=environment)
    return (time.perf_counter() - start) * 1e3, result


def warm(helper, environment):
    """One run before the timed ones: the first call may refresh, and the page cache is warm after it."""
    _, result = run_once(helper, environment)
    if result.returncode != 0:
        return {"error": result.stderr.strip()[-300:]}
    return {"ms": []}


def fresh(rows):
    """The fresh-token runs of every row, taking turns: run i of each row, then run i + 1 of each. `rows` holds
    (helper, environment, result) with the result from `warm`; the samples are appended to it."""
    for index in range(max((helper.runs for helper, _, _ in rows), default=0)):
        for helper, environment, result in rows:
            if index >= helper.runs or "error" in result:
                continue
            elapsed, outcome = run_once(helper, environment)
            if outcome.returncode != 0:
                result.clear()
                result["error"] = outcome.stderr.strip()[-300:]
                continue
            result["ms"].append(elapsed)


def wait_for_expiry():
    time.sleep(EXPIRING + 0.5)


def across_expiry(helper, environment, provider):
    run_once(helper, environment)
    samples, refreshes, failures = [], [], 0
    for _ in range(helper.expiry_runs):
        wait_for_expiry()
        before = provider.refreshes()
        elapsed, result = run_once(helper, environment)
        failures += result.returncode != 0
        samples.append(elapsed)
        refreshes.append(provider.refreshes() - before)
    return {"ms": samples, "refreshes": refreshes, "failures": failures}


def concurrent(helper, environment, provider):
    run_once(helper, environment)
    rounds = []
    for _ in range(helper.concurrent_rounds):
        wait_for_expiry()
        before = provider.refreshes()
        start = time.perf_counter()
        processes = [
            subprocess.Popen(helper.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=environment)
            for _ in range(PROCESSES)
        ]
        outputs = [process.communicate(helper.stdin, timeout=300) for process in processes]
        elapsed = (time.perf_counter() - start) * 1e3
        tokens = {token_of(out) for (out, _), process in zip(outputs, processes) if process.returncode == 0}
        rounds.append({
            "ms": elapsed,
            "refreshes": provider.refreshes() - before,
            "distinct": len(tokens),
            "failures": sum(process.returncode != 0 for process in processes),
        })
    return rounds


# MARK: Report


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt(value):
    if value != value:  # no samples
        return "–"
    return "%.1f" % value if value < 100 else "%.0f" % value


def report(results):
    print("| helper | fresh token, ms (median, min–max) | across an expiry, ms | refreshes per call "
          "| 8 callers across an expiry, ms | refreshes | distinct tokens | failed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, row in results.items():
        if "skipped" in row:
            print("| %s | skipped: %s | | | | | | |" % (name, row["skipped"]))
            continue
        fresh_row = row["fresh"]
        fresh_text = ("error: " + fresh_row["error"]) if "error" in fresh_row else "%s (%s–%s), n = %d" % (
            fmt(median(fresh_row["ms"])), fmt(min(fresh_row["ms"])), fmt(max(fresh_row["ms"])), len(fresh_row["ms"]))
        expiry = row["expiry"]
        rounds = row["concurrent"]
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fresh_text, fmt(median(expiry["ms"])), "/".join(str(r) for r in expiry["refreshes"]),
            "/".join(fmt(r["ms"]) for r in rounds), "/".join(str(r["refreshes"]) for r in rounds),
            "/".join(str(r["distinct"]) for r in rounds), "/".join(str(r["failures"]) for r in rounds)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tether", default=os.path.join(ROOT, ".build", "release", "tether"))
    parser.add_argument("--quick", action="store_true", help="fewer runs, one round each")
    parser.add_argument("--json", help="also write the samples to this file")
    parser.add_argument("--fresh-only", action="store_true", help="only the fresh-token runs")
    parser.add_argument("--only", help="only the rows whose name contains this text (and the /bin/true floor)")
    parser.add_argument("--runs", type=int, help="fresh-token runs of every row (50, 10 for gcloud's)")
    arguments = parser.parse_args()
    tether = os.path.abspath(arguments.tether)
    folder = tempfile.mkdtemp(prefix="tether-helpers-")
    long_lived = Provider(tether, 3600)
    expiring = Provider(tether, EXPIRING)
    results = {}
    try:
        environments = {("none", "long"): clean_environment()}
        selected = []
        for helper in helpers(tether):
            if arguments.only and arguments.only not in helper.name and helper.tool != "none":
                continue
            if arguments.fresh_only:
                helper.expiry_runs, helper.concurrent_rounds = 0, 0
            if arguments.runs:
                helper.runs = arguments.runs
            if arguments.quick:
                helper.runs = min(helper.runs, 10)
                helper.expiry_runs, helper.concurrent_rounds = min(helper.expiry_runs, 1), min(helper.concurrent_rounds, 1)
            if helper.tool == "gcloud" and not shutil.which("gcloud"):
                results[helper.name] = {"skipped": "gcloud is not installed"}
                continue
            if shutil.which(helper.command[0]) is None and not os.path.exists(helper.command[0]):
                results[helper.name] = {"skipped": "%s is not installed" % helper.command[0]}
                continue
            for label, provider in (("long", long_lived), ("expiring", expiring)):
                key = (helper.tool, label)
                if key not in environments and (label == "long" or helper.expiry_runs or helper.concurrent_rounds):
                    sub = os.path.join(folder, "%s-%s" % key)
                    os.makedirs(sub)
                    environments[key] = (tether_environment(tether, provider, sub) if helper.tool == "tether"
                                         else gcloud_environment(provider, sub))
            row = {"fresh": warm(helper, environments[(helper.tool, "long")])}
            results[helper.name] = row
            selected.append(helper)
        fresh([(helper, environments[(helper.tool, "long")], results[helper.name]["fresh"]) for helper in selected])
        print("helpers: fresh-token runs done", file=sys.stderr)
        for helper in selected:
            row = results[helper.name]
            environment = environments.get((helper.tool, "expiring"))
            row["expiry"] = across_expiry(helper, environment, expiring) if environment else {"ms": [], "refreshes": []}
            row["concurrent"] = concurrent(helper, environment, expiring) if environment else []
            print("helpers: %s done" % helper.name, file=sys.stderr)
    finally:
        long_lived.stop()
        expiring.stop()
        shutil.rmtree(folder, ignore_errors=True)
    report(results)
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(results, file, indent=2)


if __name__ == "__main__":
    main()
