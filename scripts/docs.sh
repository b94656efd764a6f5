#!/usr/bin/env bash
# Builds the DocC catalog of every library product with warnings as errors, so a broken
# symbol link fails CI. Every library product must have Sources/<Target>/<Target>.docc with a
# landing page and at least one article. Archives go to .build/plugins/Swift-DocC/outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t targets < <(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
for product in package["products"]:
    if "library" in product["type"]:
        print(*product["targets"], sep="\n")
' | sort -u)
if [ "${#targets[@]}" -eq 0 ]; then
    echo "docs: no library products found in Package.swift" >&2
    exit 1
fi
arguments=()
for target in "${targets[@]}"; do
    catalog="Sources/$target/$target.docc"
    pages=$(find "$catalog" -name '*.md' 2>/dev/null | wc -l)
    if [ "$pages" -lt 2 ]; then
        echo "docs: $catalog needs a landing page ($target.md) and at least one article" >&2
        exit 1
    fi
    arguments+=(--target "$target")
done
echo "docs: ${targets[*]}"
swift package --disable-sandbox generate-documentation "${arguments[@]}" --warnings-as-errors
