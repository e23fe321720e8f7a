#!/usr/bin/env python3
"""Side-by-side benchmark: Tether and Python OAuth client libraries against the same development provider.

Run through bench/run.sh, which builds Tether's side in release and installs the pinned peers first. Everything binds
127.0.0.1; the run stops by itself (about 10 minutes on 2 cores). See docs/benchmarks.md for what each row means.

    python3 bench/bench.py [--quick] [--json FILE]
"""

import argparse
import asyncio
import datetime
import importlib.util
import json
import multiprocessing
import os
import platform
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import peers  # noqa: E402

TETHER = os.path.join(ROOT, ".build", "release", "tether")
AGENT = os.path.join(ROOT, "Benchmarks", ".build", "release", "TetherBenchmarks")
ADMIN_KEY = secrets.token_urlsafe(32)
LIFETIME = 2  # seconds an access token lives at the provider the expiry scenarios use
LEEWAY = 0.5  # refresh this long before expiry (Tether's default leeway for a 2-second token: a quarter of it)
PROCESSES = 8


# MARK: Provider


class Provider:
    """`tether dev-provider` on 127.0.0.1 with a port of its choosing; rotation and reuse detection are on, with no
    grace period (the provider's defaults)."""

    def __init__(self, lifetime):
        environment = clean_environment()
        environment["TETHER_DEV_ADMIN_KEY"] = ADMIN_KEY
        self.process = subprocess.Popen(
            [TETHER, "dev-provider", "--port", "0", "--access-token-lifetime", str(lifetime)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=environment,
        )
        self.issuer = self.process.stdout.readline().split()[-1]
        with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration", timeout=10) as response:
            discovery = json.load(response)
        self.endpoints = {"token": discovery["token_endpoint"], "userinfo": discovery["userinfo_endpoint"]}

    def admin(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.issuer + "/admin/" + path,
            data=data,
            headers={"X-Tether-Admin": ADMIN_KEY, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def mint(self, expired=False):
        """A new grant for the user ada, as a sign-in would give; `expired` backdates the access token's expiry."""
        token = self.admin("tokens", {"username": "ada"})
        now = time.time()
        token["expires_at"] = now - 1 if expired else now + token["expires_in"]
        token["expires_in"] = token["expires_at"] - now
        token.pop("id_token", None)
        return token

    def counters(self):
        counters = self.admin("counters")
        return {
            "token_requests": counters["requests"].get("token", 0),
            "refreshes": counters["events"].get("refreshes", 0),
            "reuse_detections": counters["events"].get("reuse_detections", 0),
        }

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def clean_environment():
    return {k: v for k, v in os.environ.items() if not k.startswith("TETHER_") and k != "BROWSER"}


def delta(after, before):
    return {key: after[key] - before[key] for key in after}


# MARK: Tether's side


class Agent:
    """One `TetherBenchmarks --peer-agent` process: a Session over a VaultStore in `vault`."""

    def __init__(self, provider, vault):
        environment = clean_environment()
        environment["BENCH_ADMIN_KEY"] = ADMIN_KEY
        self.process = subprocess.Popen(
            [AGENT, "--peer-agent", provider.issuer, vault],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.read()

    def send(self, command):
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def read(self):
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("bench: the Tether agent ended")
        answer = json.loads(line)
        if "error" in answer:
            raise SystemExit("bench: the Tether agent failed: %s" % answer["error"])
        return answer

    def ask(self, command):
        self.send(command)
        return self.read()

    def seed(self, token):
        self.ask(
            {
                "op": "seed",
                "access_token": token["access_token"],
                "refresh_token": token["refresh_token"],
                "expires_in": token["expires_at"] - time.time(),
            }
        )

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def split(total, parts):
    return [total // parts + (1 if index < total % parts else 0) for index in range(parts)]


def tether_burst(provider, agents, callers):
    """One expired grant, `callers` concurrent authorized GETs spread over the agents."""
    token = provider.mint(expired=True)
    agents[0].seed(token)
    for agent in agents[1:]:
        agent.ask({"op": "open"})
    before = provider.counters()
    shares = split(callers, len(agents))
    for agent, share in zip(agents, shares):
        agent.send({"op": "burst", "callers": share, "url": provider.endpoints["userinfo"]})
    outcomes = {}
    for agent in agents:
        for kind, count in agent.read()["results"].items():
            outcomes[kind] = outcomes.get(kind, 0) + count
    return delta(provider.counters(), before), outcomes


# MARK: Python side


def child(peer, token, callers, barrier, queue):
    barrier.wait()
    queue.put(peers.burst(peer, lambda: peer.make(token), callers))


def python_burst(provider, peer, callers, processes):
    token = provider.mint(expired=True)
    before = provider.counters()
    if processes == 1:
        outcomes = peers.burst(peer, lambda: peer.make(token), callers)
    else:
        context = multiprocessing.get_context("fork")
        shares = split(callers, processes)
        barrier = context.Barrier(processes)
        queue = context.Queue()
        children = [
            context.Process(target=child, args=(peer, token, share, barrier, queue), daemon=True) for share in shares
        ]
        for process in children:
            process.start()
        outcomes = {}
        for _ in children:
            for kind, count in queue.get(timeout=300).items():
                outcomes[kind] = outcomes.get(kind, 0) + count
        for process in children:
            process.join(60)
    return delta(provider.counters(), before), outcomes


def python_soak(provider, peer, callers, seconds):
    """`callers` threads (coroutines) send an authorized GET every 50 ms; a sign-out is replaced by a new grant."""
    state = {"generation": 0, "sign_outs": 0, "calls": {}}
    lock = threading.Lock()

    def record(kind):
        with lock:
            state["calls"][kind] = state["calls"].get(kind, 0) + 1

    def signed_out(client, generation):
        with lock:
            if state["generation"] != generation:
                return
            state["generation"] += 1
            state["sign_outs"] += 1
            peer.replace(client, provider.mint())

    deadline = time.monotonic() + seconds
    before = provider.counters()
    if peer.is_async:

        async def loop(client):
            while time.monotonic() < deadline:
                generation = state["generation"]
                try:
                    await peer.call(peer.get, client)
                    record("ok")
                except peers.SignedOut:
                    record("needs_sign_in")
                    signed_out(client, generation)
                except Exception as error:
                    record(peers.classify(error))
                await asyncio.sleep(0.05)

        async def main():
            client = peer.make(provider.mint())
            await asyncio.gather(*(loop(client) for _ in range(callers)))
            await client.aclose()

        asyncio.run(main())
    else:
        client = peer.make(provider.mint())

        def loop():
            while time.monotonic() < deadline:
                generation = state["generation"]
                try:
                    peer.call(peer.get, client)
                    record("ok")
                except peers.SignedOut:
                    record("needs_sign_in")
                    signed_out(client, generation)
                except Exception as error:
                    record(peers.classify(error))
                time.sleep(0.05)

        threads = [threading.Thread(target=loop, daemon=True) for _ in range(callers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds + 120)
    return delta(provider.counters(), before), state["sign_outs"], state["calls"]


def timed_batches(function, batches, per_batch):
    samples = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(per_batch):
            function()
        samples.append((time.perf_counter() - start) / per_batch * 1e6)
    return samples


def python_costs(provider, peer, iterations, folder):
    """Fresh-token cost (µs per call), authorized GET (ms), restore at launch (ms)."""
    path = os.path.join(folder, "token-%s.json" % type(peer).__name__)
    result = {}
    if peer.is_async:

        async def main():
            client = peer.make(provider.mint())
            await peer.valid_token(client)
            samples = []
            for _ in range(iterations["fresh"]):
                start = time.perf_counter()
                for _ in range(1000):
                    await peer.valid_token(client)
                samples.append((time.perf_counter() - start) / 1000 * 1e6)
            result["fresh"] = samples
            await peer.get(client)
            samples = []
            for _ in range(iterations["get"]):
                start = time.perf_counter()
                await peer.get(client)
                samples.append((time.perf_counter() - start) * 1e3)
            result["get"] = samples
            peer.save(client, path)
            await client.aclose()

        asyncio.run(main())
    else:
        client = peer.make(provider.mint())
        peer.valid_token(client)
        result["fresh"] = timed_batches(lambda: peer.valid_token(client), iterations["fresh"], 1000)
        peer.get(client)
        samples = []
        for _ in range(iterations["get"]):
            start = time.perf_counter()
            peer.get(client)
            samples.append((time.perf_counter() - start) * 1e3)
        result["get"] = samples
        peer.save(client, path)
    samples = []
    for _ in range(iterations["restore"]):
        start = time.perf_counter()
        peer.restore(path)
        samples.append((time.perf_counter() - start) * 1e3)
    result["restore"] = samples
    samples = []
    command = [sys.executable, os.path.join(HERE, "print_token.py"), type(peer).__name__, path]
    command += [provider.endpoints["token"], provider.endpoints["userinfo"], str(LEEWAY)]
    for _ in range(iterations["process"]):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append((time.perf_counter() - start) * 1e3)
    result["process"] = samples
    return result


def tether_costs(provider, iterations, folder):
    vault = os.path.join(folder, "vault-costs")
    agent = Agent(provider, vault)
    try:
        agent.seed(provider.mint())
        result = {
            "fresh": agent.ask({"op": "fresh", "iterations": iterations["fresh"]})["us"],
            "get": agent.ask({"op": "get", "iterations": iterations["get"], "url": provider.endpoints["userinfo"]})["ms"],
            "restore": agent.ask({"op": "restore", "iterations": iterations["restore"]})["ms"],
        }
    finally:
        agent.stop()
    result["process"] = tether_token_process(provider, iterations["process"], folder)
    return result


def tether_token_process(provider, runs, folder):
    """`tether token` in a TETHER_HOME signed in through the device flow, as a user would."""
    specification = importlib.util.spec_from_file_location("benchmark_cli", os.path.join(ROOT, "Scripts", "benchmark-cli.py"))
    helpers = importlib.util.module_from_spec(specification)
    specification.loader.exec_module(helpers)
    home = os.path.join(folder, "tether-home")
    environment = clean_environment()
    environment["TETHER_HOME"] = home
    login = subprocess.Popen(
        [TETHER, "login", "dev", "--issuer", provider.issuer, "--device"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    code = None
    while code is None:
        line = login.stderr.readline()
        if not line:
            raise SystemExit("bench: tether login ended before showing a code")
        if "enter the code" in line:
            code = line.split()[-1]
    helpers.approve_device_code(provider.issuer, code)
    if login.wait(timeout=60) != 0:
        raise SystemExit("bench: tether login failed")
    subprocess.run([TETHER, "token"], check=True, capture_output=True, env=environment)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([TETHER, "token"], check=True, capture_output=True, env=environment)
        samples.append((time.perf_counter() - start) * 1e3)
    return samples


# MARK: Report


def summary(values):
    if not values:
        return "—"
    median = statistics.median(values)
    low, high = min(values), max(values)
    if all(float(value).is_integer() for value in values):
        text = "%g" % median
        return text if low == high else "%s (%g–%g)" % (text, low, high)
    return "%s (%s–%s)" % (number(median), number(low), number(high))


def number(value):
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.2f" % value


def ratio(value, base):
    if not value or not base:
        return ""
    median, reference = statistics.median(value), statistics.median(base)
    if reference == 0:
        return ""
    return "%.1f×" % (median / reference) if median / reference < 10 else "%.0f×" % (median / reference)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and iterations (about 2 minutes)")
    parser.add_argument("--json", help="also write the raw samples to this file")
    arguments = parser.parse_args()
    quick = arguments.quick
    rounds = 1 if quick else 3
    soak_seconds = 6 if quick else 20
    iterations = (
        {"fresh": 5, "get": 50, "restore": 20, "process": 5}
        if quick
        else {"fresh": 30, "get": 300, "restore": 200, "process": 30}
    )
    for binary in (TETHER, AGENT):
        if not os.path.exists(binary):
            raise SystemExit("bench: %s is missing; run bench/run.sh" % binary)

    started = time.time()
    folder = tempfile.mkdtemp(prefix="tether-bench-")
    expiring = Provider(LIFETIME)
    steady = Provider(3600)
    python_peers = [kind(expiring.endpoints, LEEWAY) for kind in peers.PEERS]
    steady_peers = [kind(steady.endpoints, LEEWAY) for kind in peers.PEERS]
    names = ["Tether"] + [peer.name for peer in python_peers]
    results = {"bursts": {}, "soak": {}, "costs": {}}
    agents = []
    try:
        single = [Agent(expiring, os.path.join(folder, "vault-single"))]
        shared = [Agent(expiring, os.path.join(folder, "vault-shared")) for _ in range(PROCESSES)]
        agents = single + shared
        print("Bursts: N callers hit an expired token (%d rounds each)" % rounds, file=sys.stderr)
        for callers in (1, 10, 100, 1000):
            for processes in (1, PROCESSES):
                if callers < processes:
                    continue
                key = "%d caller%s, %s" % (callers, "" if callers == 1 else "s", "1 process" if processes == 1 else "%d processes" % processes)
                results["bursts"][key] = {name: [] for name in names}
                for _ in range(rounds):
                    counts, outcomes = tether_burst(expiring, single if processes == 1 else shared, callers)
                    results["bursts"][key]["Tether"].append({"counters": counts, "outcomes": outcomes})
                    for peer in python_peers:
                        counts, outcomes = python_burst(expiring, peer, callers, processes)
                        results["bursts"][key][peer.name].append({"counters": counts, "outcomes": outcomes})
                print("  " + key, file=sys.stderr)

        print("Soak: 50 callers for %d s with %d-second tokens" % (soak_seconds, LIFETIME), file=sys.stderr)
        single[0].seed(expiring.mint())
        before = expiring.counters()
        answer = single[0].ask(
            {"op": "soak", "callers": 50, "seconds": soak_seconds, "url": expiring.endpoints["userinfo"]}
        )
        results["soak"]["Tether"] = {
            "counters": delta(expiring.counters(), before),
            "sign_outs": answer["sign_outs"],
            "calls": answer["calls"],
        }
        for peer in python_peers:
            counts, sign_outs, calls = python_soak(expiring, peer, 50, soak_seconds)
            results["soak"][peer.name] = {"counters": counts, "sign_outs": sign_outs, "calls": calls}
            print("  " + peer.name, file=sys.stderr)
        for agent in agents:
            agent.stop()
        agents = []

        print("Costs (tokens living an hour)", file=sys.stderr)
        results["costs"]["Tether"] = tether_costs(steady, iterations, folder)
        for peer in steady_peers:
            results["costs"][peer.name] = python_costs(steady, peer, iterations, folder)
            print("  " + peer.name, file=sys.stderr)
    finally:
        for agent in agents:
            try:
                agent.process.kill()
            except OSError:
                pass
        expiring.stop()
        steady.stop()
        shutil.rmtree(folder, ignore_errors=True)

    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(results, file, indent=1)
    report(results, names, rounds, soak_seconds, iterations, time.time() - started)


def report(results, names, rounds, soak_seconds, iterations, elapsed):
    print(
        "Side-by-side benchmark, %s, %s, %d cores, Python %s, %d s"
        % (
            datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            platform.platform(terse=True),
            os.cpu_count(),
            platform.python_version(),
            elapsed,
        )
    )
    print()
    print("Refresh requests the provider received (median, min–max over %d rounds; target 1)" % rounds)
    print()
    print("| callers | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for key, row in results["bursts"].items():
        base = [entry["counters"]["token_requests"] for entry in row["Tether"]]
        cells = []
        for name in names:
            counts = [entry["counters"]["token_requests"] for entry in row[name]]
            signed_out = sum(entry["outcomes"].get("needs_sign_in", 0) for entry in row[name])
            failed = sum(count for entry in row[name] for kind, count in entry["outcomes"].items() if kind != "ok")
            total = sum(sum(entry["outcomes"].values()) for entry in row[name])
            cell = summary(counts)
            if name != "Tether" and statistics.median(counts) != statistics.median(base):
                cell += " (%s)" % ratio(counts, base)
            if failed:
                cell += "; %d/%d calls failed, %d told to sign in" % (failed, total, signed_out)
            cells.append(cell)
        print("| %s | %s |" % (key, " | ".join(cells)))
    print()
    print("Reuse detections and forced sign-outs: 50 callers, an authorized GET every 50 ms each, %d s" % soak_seconds)
    print()
    print("| | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    rows = [
        ("refresh requests", lambda entry: entry["counters"]["token_requests"]),
        ("successful refreshes", lambda entry: entry["counters"]["refreshes"]),
        ("reuse detections (grant revoked)", lambda entry: entry["counters"]["reuse_detections"]),
        ("forced sign-outs", lambda entry: entry["sign_outs"]),
        ("GETs that succeeded", lambda entry: entry["calls"].get("ok", 0)),
        ("GETs that failed", lambda entry: sum(v for k, v in entry["calls"].items() if k != "ok")),
    ]
    for label, value in rows:
        print("| %s | %s |" % (label, " | ".join(str(value(results["soak"][name])) for name in names)))
    print()
    print("Costs (median, min–max; ratio to Tether's median)")
    print()
    print("| | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    labels = [
        ("fresh", "valid token while fresh, µs per call (%d batches of 1,000)" % iterations["fresh"]),
        ("get", "one authorized GET of userinfo, ms (%d)" % iterations["get"]),
        ("restore", "restore at launch, ms (%d)" % iterations["restore"]),
        ("process", "fresh process printing a token, ms (%d)" % iterations["process"]),
    ]
    base = results["costs"]["Tether"]
    for key, label in labels:
        cells = []
        for name in names:
            values = results["costs"][name][key]
            cell = summary(values)
            if name != "Tether":
                cell += " — " + ratio(values, base[key])
            cells.append(cell)
        print("| %s | %s |" % (label, " | ".join(cells)))


if __name__ == "__main__":
    main()
