#!/usr/bin/env bash
# Runs tests under a sanitizer, each in its own scratch path (a sanitized build recompiles every dependency; the
# normal .build stays as it is).
#
#   Scripts/sanitize.sh thread    the core tests (Tests/TetherTests: session, refresh, status, vault and store
#                                 suites) under ThreadSanitizer, through the small package in Sanitizers/ (CI)
#   Scripts/sanitize.sh address   the whole suite under AddressSanitizer (slow: every module and dependency)
#   Scripts/sanitize.sh thread --filter SessionRefreshTests   extra arguments go to `swift test`
set -euo pipefail
cd "$(dirname "$0")/.."

kind="${1:-thread}"
shift || true
case "$kind" in
    thread)
        # TSan reports a race as a warning and goes on; halt_on_error makes it fail the test run.
        export TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}"
        cd Sanitizers
        swift build --build-tests --scratch-path ../.build-tsan --sanitize=thread 2>&1 | { grep -v "unhandled\|CMakeLists.txt" || true; }
        swift test --skip-build --scratch-path ../.build-tsan --sanitize=thread "$@"
        ;;
    address)
        export ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}"
        swift build --build-tests --scratch-path .build-asan --sanitize=address 2>&1 | { grep -v "unhandled\|CMakeLists.txt" || true; }
        swift test --skip-build --scratch-path .build-asan --sanitize=address "$@"
        ;;
    *)
        echo "usage: Scripts/sanitize.sh thread|address [swift test arguments]" >&2
        exit 64
        ;;
esac
