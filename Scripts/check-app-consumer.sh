#!/usr/bin/env bash
# Resolves and builds Examples/AppConsumer, an app's view of Tether (the app products, no trait enabled), and fails
# unless exactly the packages an app needs come with it: swift-log, swift-crypto, swift-asn1, swift-http-types.
# Prints the list, the time resolving took and the time and CPU the clean build took.
set -euo pipefail
cd "$(dirname "$0")/../Examples/AppConsumer"
expected="swift-asn1 swift-crypto swift-http-types swift-log"
scratch="${TETHER_CONSUMER_SCRATCH:-.build}"
rm -rf "$scratch" Package.resolved

start=$(date +%s%N)
swift package --scratch-path "$scratch" resolve >/dev/null
resolved=$(date +%s%N)
root=$(basename "$(cd ../.. && pwd)" | tr '[:upper:]' '[:lower:]')
packages=$(swift package --scratch-path "$scratch" show-dependencies --format flatlist | sort -u | grep -vx "$root" | tr '\n' ' ' | sed 's/ $//')
echo "app-consumer: packages resolved ($(echo "$packages" | wc -w)): $packages"
echo "app-consumer: resolve took $(( (resolved - start) / 1000000 )) ms"
if [[ "$packages" != "$expected" ]]; then
    echo "app-consumer: expected exactly: $expected" >&2
    exit 1
fi
/usr/bin/time -f "app-consumer: clean build wall %e s, user %U s, system %S s" \
    swift build --scratch-path "$scratch" 2>&1 | grep -E "^app-consumer:|error:|warning: [^']" || true
test -d "$scratch/debug" || { echo "app-consumer: the build failed" >&2; exit 1; }
swift build --scratch-path "$scratch" >/dev/null
echo "app-consumer: ok"
