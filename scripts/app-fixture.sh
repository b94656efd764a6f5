#!/usr/bin/env bash
# Builds and runs Fixtures/app, the README's app snippet: the embedded products with the
# `Server` trait off, resolved against this checkout. Proves they compile and run without
# the server side's packages, and prints what SwiftPM fetched (swift-metrics alone).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
ln -s "$root" "$scratch/logbook"   # the package's identity is the path's last part
cp -R "$root/Fixtures/app" "$scratch/app"
cd "$scratch/app"
swift build -Xswiftc -warnings-as-errors
echo "fetched: $(ls .build/checkouts | tr '\n' ' ')"
test "$(ls .build/checkouts)" = "swift-metrics"
test "$(.build/debug/NoteTaker "$scratch/notes")" = "Buy milk"
echo "the app fixture builds and runs on the embedded products alone"
