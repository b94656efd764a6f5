#!/usr/bin/env bash
# Installs a built `logbook` under a prefix: the binary, its manual page and its shell
# completions. `make install` builds the release binary and the manual's generator first;
# the tests run this with the debug builds and a temporary prefix.
#
#   scripts/install.sh BINARY GENERATE_MANUAL PREFIX
#
# BINARY is the logbook executable; GENERATE_MANUAL is swift-argument-parser's
# generate-manual tool (`swift build --product generate-manual`), which writes the manual
# from the binary's own help; PREFIX is where to install (bin/, share/man/man1/,
# share/bash-completion/completions/, share/zsh/site-functions/,
# share/fish/vendor_completions.d/).
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 BINARY GENERATE_MANUAL PREFIX" >&2
    exit 64
fi
binary=$1
generate_manual=$2
prefix=$3
for tool in "$binary" "$generate_manual"; do
    if [ ! -x "$tool" ]; then
        echo "install: $tool is not an executable (build it first: make install)" >&2
        exit 1
    fi
done

manual=$(mktemp -d)
trap 'rm -rf "$manual"' EXIT
"$generate_manual" "$binary" --output-directory "$manual" >/dev/null
if [ ! -s "$manual/logbook.1" ]; then
    echo "install: generate-manual wrote no logbook.1" >&2
    exit 1
fi

install -d "$prefix/bin" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
install -m 755 "$binary" "$prefix/bin/logbook"
install -m 644 "$manual/logbook.1" "$prefix/share/man/man1/logbook.1"
"$binary" --generate-completion-script bash >"$prefix/share/bash-completion/completions/logbook"
"$binary" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_logbook"
"$binary" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/logbook.fish"
echo "installed logbook $("$binary" --version) under $prefix"
