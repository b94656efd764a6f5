#!/usr/bin/env bash
# `logbook bench chat` from a debug and a release build, one after the other, and the ratio
# of each figure: what a debug build (Xcode's while an app is developed) costs an app.
# Usage: scripts/debug-release.sh [runs] [messages]   (defaults: 3 runs, 100,000 messages)
# With LOGBOOK_LZ4=swift, both builds use the project's own LZ4 codec, as Apple platforms
# do (built in .build-own-lz4, so the usual .build keeps liblz4).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
messages="${2:-100000}"
scratch=.build
if [ "${LOGBOOK_LZ4:-}" = swift ]; then scratch=.build-own-lz4; fi
swift build --product logbook --scratch-path "$scratch"
swift build -c release --product logbook --scratch-path "$scratch"
for build in debug release; do
    "$scratch/$build/logbook" bench chat --runs "$runs" --records "$messages" --json \
        --directory "/tmp/logbook-chat-$build" > "/tmp/logbook-chat-$build.json"
done
python3 - "$messages" <<'PY'
import json, sys
def figures(build):
    with open(f"/tmp/logbook-chat-{build}.json") as f:
        report = json.load(f)
    return {figure["kind"]: figure for figure in report["figures"]}
debug, release = figures("debug"), figures("release")
print(f"chat workload, {sys.argv[1]} messages, median seconds")
for kind in ("chat write", "chat open"):
    d = int(sys.argv[1]) / debug[kind]["changesPerSecond"]
    r = int(sys.argv[1]) / release[kind]["changesPerSecond"]
    print(f"{kind:11}  release {r:7.3f} s  debug {d:7.3f} s  debug/release {d / r:5.1f}x")
PY
