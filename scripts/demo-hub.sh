#!/usr/bin/env bash
# The hub demo (`make demo-hub`): a throwaway PostgreSQL (scripts/with-postgres.sh), two hub
# processes on it, five Logbook nodes in a temporary directory. The nodes write — some to the
# same records, one deletes — sync through either hub, and end with one state. Every step
# is a `logbook` command as a user would type it; they are printed before they run.
# LOGBOOK: the binary (default .build/release/logbook).
set -euo pipefail

if [ -z "${LOGBOOK_TEST_POSTGRES_URL:-}" ]; then
    exec bash "$(dirname "$0")/with-postgres.sh" bash "$0" "$@"
fi

logbook=$(realpath "${LOGBOOK:-.build/release/logbook}")
url=$LOGBOOK_TEST_POSTGRES_URL
work=$(mktemp -d /tmp/logbook-demo-hub.XXXXXX)
hubs=()
cleanup() {
    for pid in "${hubs[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$(echo "$*" | sed "s#$work#\$DEMO#g; s#$logbook#logbook#g")"; "$@"; }
http_get() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

say "A throwaway PostgreSQL is up; \$DEMO is $work"
say "Create the hub's schema and a token for the stream 'home'"
run "$logbook" hub migrate --postgres "$url"
"$logbook" hub token create --postgres "$url" --stream home >"$work/token"
echo "(token written to \$DEMO/token; the database keeps only its SHA-256)"

say "Start two stateless hub processes on the same database"
ports=()
for _ in 1 2; do
    port=$(free_port)
    "$logbook" hub serve --postgres "$url" --port "$port" --log-level warning &
    hubs+=($!)
    ports+=("$port")
    echo "hub on http://127.0.0.1:$port (pid $!)"
done
for port in "${ports[@]}"; do
    for _ in $(seq 100); do
        http_get "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
        sleep 0.1
    done
done

say "Five nodes write on their own, offline: lamps, a shared thermostat, one deletion"
for node in 1 2 3 4 5; do
    "$logbook" init "$work/node$node" --node "$node" >/dev/null
    run "$logbook" put "$work/node$node" "entity/lamp-$node" "name=Lamp $node" "on=true"
    run "$logbook" put "$work/node$node" entity/thermostat "target=$((18 + node))"
done
run "$logbook" put "$work/node2" entity/doomed "name=Soon gone"

hub_of() { echo "http://127.0.0.1:${ports[$(( $1 % 2 ))]}"; }
sync_node() {
    run "$logbook" sync "$work/node$1" --hub "$(hub_of "$1")" --stream home \
        --token-file "$work/token"
}

say "Round 1: each node pushes what it wrote and pulls what the hub has (odd nodes via hub 2)"
for node in 1 2 3 4 5; do sync_node "$node"; done

say "Node 4 deletes a record it got from node 2, and syncs"
run "$logbook" delete "$work/node4" entity/doomed
sync_node 4

say "Round 2: everyone pulls what the others pushed after them; nothing pulled goes back"
for node in 1 2 3 4 5; do sync_node "$node"; done

say "One state everywhere"
digests=()
for node in 1 2 3 4 5; do
    digest=$("$logbook" sync "$work/node$node" --hub "$(hub_of "$node")" --stream home \
        --token-file "$work/token" | sed -n 's/^digest: //p')
    echo "node $node: $digest"
    digests+=("$digest")
done
echo "The stream's state as the hub holds it (GET /streams/home/changes?since=0, winners only):"
python3 - "http://127.0.0.1:${ports[0]}/streams/home/changes?since=0" "$(cat "$work/token")" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})
for change in json.load(urllib.request.urlopen(request, timeout=5)):
    what = "deleted" if change["col_name"] is None else f'{change["col_name"]} = {json.dumps(change["value"])}'
    print(f'  {change["record_id"]:<18} {what:<22} (node {change["node_id"]})')
PY
if [ "$(printf '%s\n' "${digests[@]}" | sort -u | wc -l)" -ne 1 ]; then
    echo "the nodes did not converge" >&2
    exit 1
fi
say "Converged: five nodes, two hub processes, one PostgreSQL. What the hubs counted:"
for port in "${ports[@]}"; do
    http_get "http://127.0.0.1:$port/metrics" | grep -E '^logbook_hub_(merges|accepted_changes|pulled_changes)_total' \
        | sed "s/^/  hub :$port  /"
done
