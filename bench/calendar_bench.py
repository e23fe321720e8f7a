#!/usr/bin/env python3
"""The calendar as a user runs it: `tether calendar` processes against pre-built Google Calendar pages, beside a plain
Python loop that fetches and parses the same pages, in one run. See docs/benchmarks.md ("The calendar, whole process").

    swift build -c release --static-swift-stdlib --product tether-cli
    swift build -c release --static-swift-stdlib --product tether-calendar   # `tether calendar sync` runs it
    swift build -c release --static-swift-stdlib --product tether
    python3 bench/calendar_bench.py [--tether .build/release/tether] [--runs 15] [--events 5000]

What it does, in a temporary TETHER_HOME (removed at the end):
1. starts the stand-in (bench/calendar_standin.py: 5,000 events of about 2 KB, 21 pre-built answers) in this
   process, and `tether dev-provider` for the sign-in only;
2. signs in with `tether login dev --device --calendar google --calendar-api STAND-IN` (tokens live a day, so no run
   refreshes);
3. times whole processes, each --runs times (median, p90, fastest wall time; median CPU time, which a loaded
   machine disturbs less): the Python loop; `tether --version`; full syncs (cache removed before each);
   incremental syncs with no change and with one; `tether calendar events` with the stand-in stopped (a
   refused connection on 127.0.0.1), which must fall back to the cache;
4. prints a Markdown table, and checks every run's output (5,000 events over the whole window).

Needs only the Python standard library.
"""

import argparse
import datetime
import glob
import importlib.util
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import calendar_standin  # noqa: E402

ADMIN_KEY = secrets.token_urlsafe(32)


def helpers():
    """Scripts/benchmark-cli.py, for its device-code approval."""
    specification = importlib.util.spec_from_file_location(
        "benchmark_cli", os.path.join(ROOT, "Scripts", "benchmark-cli.py")
    )
    module = importlib.util.module_from_spec(specification)
    specification.loader.exec_module(module)
    return module


def clean_environment(home):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_") and k != "BROWSER"}
    for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]:
        environment.pop(name, None)
    environment["TETHER_HOME"] = home
    environment["TZ"] = "UTC"
    return environment


def sign_in(tether, environment, base_url):
    provider = subprocess.Popen(
        [tether, "dev-provider", "--port", "0", "--access-token-lifetime", "86400"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(environment, TETHER_DEV_ADMIN_KEY=ADMIN_KEY),
    )
    try:
        issuer = provider.stdout.readline().split()[-1]
        login = subprocess.Popen(
            [tether, "login", "dev", "--issuer", issuer, "--device"]
            + ["--calendar", "google", "--calendar-api", base_url],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        code = None
        while code is None:
            line = login.stderr.readline()
            if not line:
                raise SystemExit("calendar_bench: tether login ended before showing a code")
            if "enter the code" in line:
                code = line.split()[-1]
        helpers().approve_device_code(issuer, code)
        if login.wait(timeout=60) != 0:
            raise SystemExit("calendar_bench: tether login failed")
        token = subprocess.run([tether, "token"], capture_output=True, text=True, env=environment, check=True)
        return token.stdout.strip()
    finally:
        provider.terminate()
        provider.wait(timeout=10)


def timed(command, environment, expect=(0,)):
    """Runs `command`: its wall time, the CPU time (user and system) of the process, and its result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if result.returncode not in expect:
        raise SystemExit(
            "calendar_bench: %s exited %d: %s" % (" ".join(command[1:]), result.returncode, result.stderr.strip())
        )
    return elapsed, cpu, result


def summary(values):
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "min": ordered[0],
        "n": len(ordered),
    }


def main():
    parser = argparse.ArgumentParser(description="The calendar as a user runs it, beside a Python loop.")
    parser.add_argument("--tether", default=os.path.join(ROOT, ".build", "release", "tether"))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--json", help="also write the figures to this file")
    arguments = parser.parse_args()
    tether = os.path.abspath(arguments.tether)
    runs = arguments.runs

    home = tempfile.mkdtemp(prefix="tether-calendar-bench-")
    environment = clean_environment(home)
    server, base_url = calendar_standin.start(arguments.events, 250)
    port = server.server_address[1]
    rows = []
    try:
        token = sign_in(tether, environment, base_url)
        caches = os.path.join(home, "**", "calendar-cache")

        def drop_cache():
            for folder in glob.glob(caches, recursive=True):
                shutil.rmtree(folder)

        today = datetime.datetime.now(datetime.timezone.utc).date()
        whole = ["--from", today.isoformat(), "--to", (today + datetime.timedelta(days=366)).isoformat()]

        def check_sync(result, expected):
            document = json.loads(result.stdout)
            events = sum(connection["events"] for connection in document["connections"])
            if events != expected:
                raise SystemExit("calendar_bench: the sync counted %d events, not %d" % (events, expected))

        def measure(title, command, before=None, expect=(0,), check=None):
            samples = []
            cpu_samples = []
            for _ in range(runs):
                if before:
                    before()
                elapsed, cpu, result = timed(command, environment, expect)
                if check:
                    check(result)
                samples.append(elapsed)
                cpu_samples.append(cpu)
            shown = " ".join(["tether"] + command[1:]) if command[0] == tether else title
            rows.append((title, shown, dict(summary(samples), cpu=statistics.median(cpu_samples))))
            print(
                "%-60s median %7.1f ms, CPU %7.1f ms" % (title, rows[-1][2]["median"], rows[-1][2]["cpu"]),
                file=sys.stderr,
                flush=True,
            )

        loop = [sys.executable, os.path.join(HERE, "calendar_python_loop.py"), base_url, token]
        measure(
            "Python loop: 21 pages fetched and parsed (json.loads)",
            loop,
            check=lambda result: int(result.stdout) == arguments.events or sys.exit("calendar_bench: loop count"),
        )
        measure("tether --version (process start)", [tether, "--version"])
        sync_all = [tether, "calendar", "sync", "--days", "366", "--json"]
        measure(
            "full sync, whole window (cache removed first)",
            sync_all,
            before=drop_cache,
            check=lambda result: check_sync(result, arguments.events),
        )
        week = [tether, "calendar", "events"]
        measure("full sync, one-week table (cache removed first)", week, before=drop_cache)
        timed(sync_all, environment)
        measure(
            "incremental sync, no change, whole window",
            sync_all,
            check=lambda result: check_sync(result, arguments.events),
        )
        measure("incremental sync, no change, 14 days (`calendar sync`)", [tether, "calendar", "sync", "--json"])
        measure("incremental sync, no change, one-week table", week)
        answers = server.RequestHandlerClass.answers
        rounds = iter(range(1_000_000))
        measure(
            "incremental sync, one event changed, whole window",
            sync_all,
            before=lambda: calendar_standin.change_one(answers, next(rounds)),
            check=lambda result: check_sync(result, arguments.events),
        )
        answers["unchanged"] = calendar_standin.changes_page([])
        timed(sync_all, environment)
        measure(
            "incremental sync, no change, whole window listed as JSON",
            [tether, "calendar", "events", "--json"] + whole,
            check=lambda result: len(json.loads(result.stdout)["events"]) == arguments.events
            or sys.exit("calendar_bench: listing count"),
        )
        server.shutdown()
        server.server_close()
        server = None
        measure(
            "API refused (127.0.0.1:%d closed): one-week table from the cache" % port,
            week,
            expect=(4,),
            check=lambda result: "from the cache" in result.stderr or sys.exit("calendar_bench: no cache fallback"),
        )
    finally:
        if server:
            server.shutdown()
        shutil.rmtree(home, ignore_errors=True)

    print("| what | command | median | p90 | fastest | CPU (median) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for title, command, figures in rows:
        print(
            "| %s | `%s` | %.1f ms | %.1f ms | %.1f ms | %.1f ms |"
            % (title, command if command != title else "python3 bench/calendar_python_loop.py URL TOKEN",
               figures["median"], figures["p90"], figures["min"], figures["cpu"])
        )
    print("\n%d runs each; %d events, %d pages of 250; load average %.2f at the end." % (
        runs, arguments.events, (arguments.events + 249) // 250, os.getloadavg()[0]))
    if arguments.json:
        with open(arguments.json, "w") as output:
            json.dump([{"what": title, "command": command, **figures} for title, command, figures in rows], output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
