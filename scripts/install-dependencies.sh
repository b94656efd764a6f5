#!/usr/bin/env bash
# Installs the system packages Logbook needs when they are missing: liblz4-dev (the LZ4
# library the CLZ4 target links), pkg-config (how SwiftPM finds it) and lz4 (the command the
# format tests use to prove a segment is a valid LZ4 stream), libsqlite3-dev (the SQLite
# baseline of `logbook bench`), and curl (the README's blocks call it; ReadmeBlocksTests
# runs them). Debian/Ubuntu only.
set -euo pipefail

needed=()
for package in liblz4-dev pkg-config lz4 libsqlite3-dev curl; do
    dpkg -s "$package" >/dev/null 2>&1 || needed+=("$package")
done
[ ${#needed[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "missing ${needed[*]} and no apt-get here: install them with your package manager" >&2
    exit 1
fi
sudo_prefix=""
if [ "$(id -u)" -ne 0 ]; then sudo_prefix="sudo"; fi
echo "installing ${needed[*]}"
$sudo_prefix apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_prefix apt-get install -y -qq "${needed[@]}" >/dev/null
