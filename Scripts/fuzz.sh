#!/usr/bin/env bash
# Builds the fuzz targets (Fuzz/TetherFuzz) with libFuzzer and the address sanitizer and runs them.
#
#   Scripts/fuzz.sh                          every target, 1,000,000 inputs each
#   Scripts/fuzz.sh --runs 20000 token jws   some targets, fewer inputs
#   Scripts/fuzz.sh --seconds 8              every target for 8 seconds (CI)
#
# The build lives in .build-fuzz (its own scratch path: sanitized builds recompile every dependency, and the normal
# .build stays as it is). Each target starts from its committed seeds (Fuzz/Corpus/<target>) and keeps what it
# finds in .build-fuzz/corpus/<target>; a crash, a hang (10 s for one input) or a planted secret found in an error
# description stops the run, leaves the input in .build-fuzz/artifacts/ and fails the script. Replay one with
# `swift run TetherFuzz <target> <file>` or `TETHER_FUZZ_TARGET=<target> .build-fuzz/debug/TetherFuzz <file>`.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
seconds=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --seconds) seconds="$2"; runs=-1; shift 2 ;;
        -h|--help) sed -n 2,13p "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(callback token jws discovery vault www-authenticate calendar)

scratch=.build-fuzz
# `FUZZING` swaps the replay tool's `main` for libFuzzer's entry point (Fuzz/TetherFuzz/Entry.swift). SwiftPM
# passes `--sanitize=fuzzer --sanitize=address` to swiftc as two `-sanitize=` flags, of which swiftc keeps only the
# last: the Swift code would get no coverage instrumentation. `-sanitize=fuzzer,address` in one flag gives it both.
swift build --scratch-path "$scratch" --product TetherFuzz \
    --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING 2>&1 |
    { grep -v "unhandled\|CMakeLists.txt\|Cannot export local symbol" || true; }
binary="$scratch/debug/TetherFuzz"
[ -x "$binary" ] || { echo "fuzz build failed"; exit 1; }

mkdir -p "$scratch/artifacts"
summary=()
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    log="$scratch/$target.log"
    echo "== $target"
    # Swift's runtime keeps its metadata caches until exit, which LeakSanitizer reports as leaks; leaks are not
    # what these targets look for, so leak detection is off.
    # SWIFT_BACKTRACE: the runtime's crash backtracer reads other stacks, which AddressSanitizer reports as a second
    # error after a trap; libFuzzer's own stack trace is the one to read.
    if ! SWIFT_BACKTRACE=enable=no TETHER_FUZZ_TARGET="$target" "$binary" "$corpus" "Fuzz/Corpus/$target" \
        -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target-" >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "FAILED: $target (log: $log)"
        exit 1
    fi
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    final=$(grep -E "^#[0-9]+" "$log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")
    features=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$final")
    summary+=("$(printf '%-17s %12s %9s %7s %8s %14s' "$target" "$executed" "$rate" "$cov" "$features" "$corp")")
done

echo
printf '%-17s %12s %9s %7s %8s %14s\n' target inputs execs/s cov ft corpus
printf '%s\n' "${summary[@]}"
