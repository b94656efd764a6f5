#!/usr/bin/env bash
# Measures what concurrent whole GET /changes answers cost a node in memory.
#
#   scripts/measure-answer-memory.sh [BINARY] [CLIENTS]
#
# Builds a node of 300,000 changes (100,000 records x 3 columns) in a temporary directory
# with BINARY (default .build/debug/logbook), serves it, starts CLIENTS (default 20) clients
# at once that each read GET /changes?since=0 at 2 MB/s, and prints the node's resident set
# before and at its peak (sampled every 200 ms for 30 s) and how many clients were answered
# 200 and 503. Needs curl and python3.
set -euo pipefail
bin=${1:-.build/debug/logbook}
clients=${2:-20}
port=${PORT:-7811}
work=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$work/state.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as out:
    version = 1
    for record in range(100_000):
        for column in ("name", "room", "level"):
            out.write(json.dumps({
                "recordId": "e/%06d" % record, "colName": column,
                "value": "value-%d-%s" % (record, column), "colVersion": 1,
                "dbVersion": version, "nodeId": 9, "localDbVersion": version, "flags": 0,
            }) + "\n")
            version += 1
PY
"$bin" init "$work/node" --node 1 >/dev/null
"$bin" append "$work/node" "$work/state.jsonl" >/dev/null
echo secret >"$work/token"
"$bin" serve "$work/node" --port "$port" --token-file "$work/token" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    curl -sf "localhost:$port/readyz" -H "Authorization: Bearer secret" >/dev/null && break
    sleep 0.2
done
rss() { awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status"; }
before=$(rss)
for client in $(seq "$clients"); do
    curl -s --limit-rate 2M -H "Authorization: Bearer secret" -w "%{http_code}\n" \
        "localhost:$port/changes?since=0" -o "$work/answer.$client" >>"$work/statuses" &
done
peak=0
for _ in $(seq 150); do
    now=$(rss)
    if [ "$now" -gt "$peak" ]; then peak=$now; fi
    sleep 0.2
done
wait $(jobs -p | grep -vx "$pid") 2>/dev/null || true
# Past --large-answers-max (default 4) a client waits up to 5 s, then is answered 503.
echo "$bin: $clients clients: ${before} MB before, ${peak} MB at the peak;" \
    "answer $(stat -c %s "$work/answer.1") bytes;" \
    "statuses: $(sort "$work/statuses" | uniq -c | tr -s ' ' | tr '\n' ';')"
