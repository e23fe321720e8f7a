#!/bin/sh
# Side-by-side benchmark of Tether and Python OAuth client libraries (docs/benchmarks.md).
#
#   bench/run.sh            # full run, about 10 minutes on 2 cores
#   bench/run.sh --quick    # one round each, a few iterations (about 2 minutes)
#
# Creates a Python virtual environment in .build/bench-venv, installs the peers pinned in bench/requirements.txt
# from PyPI, builds `tether`, `tether-cli` and `TetherBenchmarks` in release, then runs bench/bench.py, which starts two
# development providers on 127.0.0.1 and prints Markdown tables. Needs python3 with venv and Swift 6.
set -eu
cd "$(dirname "$0")/.."
venv=.build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r bench/requirements.txt
swift build -c release --product tether-cli
swift build -c release --product tether
swift build -c release --package-path Benchmarks --product TetherBenchmarks
exec "$venv/bin/python" bench/bench.py "$@"
