#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL for the hub's tests, unless
# LOGBOOK_TEST_POSTGRES_URL already names one. Installs Debian's postgresql when missing
# (root), runs initdb as the non-root `postgres` user into a temporary directory, starts the
# server on a free loopback port and a private socket directory, exports
# LOGBOOK_TEST_POSTGRES_URL (and LOGBOOK_TEST_POSTGRES_DATA / _BIN, so tests can restart it),
# runs the command, and stops and removes the server whatever the command did.
set -euo pipefail

if [ -n "${LOGBOOK_TEST_POSTGRES_URL:-}" ]; then
    exec "$@"
fi

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
bin=$(find_bin)
if [ -z "$bin" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "with-postgres: installing Debian's postgresql" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    elif command -v sudo >/dev/null; then
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    bin=$(find_bin)
fi
if [ -z "$bin" ]; then
    if [ "${CI:-}" = "true" ]; then
        echo "with-postgres: no PostgreSQL and none could be installed; CI needs one" >&2
        exit 1
    fi
    echo "with-postgres: no PostgreSQL found; the hub's tests will skip" >&2
    exec "$@"
fi

# initdb refuses root: the server runs as `postgres` (created by Debian's package), or as
# the caller when that is not root.
run_as=()
if [ "$(id -u)" -eq 0 ]; then run_as=(runuser -u postgres --); fi

scratch=$(mktemp -d /tmp/logbook-postgres.XXXXXX)
chmod 755 "$scratch"
if [ "${#run_as[@]}" -gt 0 ]; then chown postgres: "$scratch"; fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() {
    "${run_as[@]}" "$bin/pg_ctl" -D "$scratch/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap stop EXIT

"${run_as[@]}" "$bin/initdb" -D "$scratch/data" -U logbook -A trust -E UTF8 --no-instructions \
    >"$scratch/initdb.log" 2>&1 || { cat "$scratch/initdb.log" >&2; exit 1; }
"${run_as[@]}" "$bin/pg_ctl" -D "$scratch/data" -l "$scratch/server.log" -w -o \
    "-k $scratch -p $port -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null \
    || { cat "$scratch/server.log" >&2; exit 1; }

export LOGBOOK_TEST_POSTGRES_URL="postgres://logbook@127.0.0.1:$port/postgres?sslmode=disable"
export LOGBOOK_TEST_POSTGRES_DATA="$scratch/data"
export LOGBOOK_TEST_POSTGRES_BIN="$bin"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on port $port" >&2
set +e
"$@"
status=$?
set -e
exit $status
