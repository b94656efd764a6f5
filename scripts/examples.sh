#!/usr/bin/env bash
# Builds and runs the three apps under Examples/ (chat, smart home, drawbridges) against
# this checkout with the `Server` trait off, as an app builds them. Each one checks what it
# shows and exits non-zero when something does not hold; this fails on the first that does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
swift build --package-path "$root/Examples" --scratch-path "$scratch/build" -Xswiftc -warnings-as-errors
for app in Chat Home Bridges; do
    echo "== $app"
    "$scratch/build/debug/$app" "$scratch/$app-data"
done
echo "fetched: $(ls "$scratch/build/checkouts" | tr '\n' ' ')"
echo "the examples build and run on the embedded products alone"
