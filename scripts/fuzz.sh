#!/usr/bin/env bash
# Runs every libFuzzer target (Fuzz/Sources/LogbookFuzz) for LOGBOOK_FUZZ_SECONDS each
# (default 8: the CI tier, about a minute for all), starting from Fuzz/Seeds plus The
# Goodies' fixtures when ../shared is present. A crash stops the run with the input saved
# under .build-fuzz/artifacts/; turn it into a regression test (docs/TESTING.md#fuzzing).
# The long tier: LOGBOOK_FUZZ_SECONDS=3600 scripts/fuzz.sh (millions of runs per target).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${LOGBOOK_FUZZ_SECONDS:-8}"
scratch="$PWD/.build-fuzz"
binary="$scratch/debug/LogbookFuzz"

# A failed build must stop the run: fuzzing the binary an earlier build left would test old
# code and pass. The output goes to a log, shown when the build fails.
build_log="$scratch/build.log"
mkdir -p "$scratch"
if ! (cd Fuzz && swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer \
    --product LogbookFuzz >"$build_log" 2>&1); then
    grep -Ev '^\[|unhandled; explicitly declare' "$build_log" | tail -40 >&2
    echo "fuzz: the build failed (log: $build_log)" >&2
    exit 1
fi
[ -x "$binary" ] || { echo "fuzz: the build left no $binary" >&2; exit 1; }

# The own LZ4 block codec is C (Sources/CLZ4Codec): its harness is built by clang with
# AddressSanitizer and UndefinedBehaviorSanitizer, so one byte out of bounds stops the run,
# and linked with liblz4 as the reference (Fuzz/CHarness/lz4_block_fuzz.c).
c_harness="$scratch/lz4-block-c"
if ! clang -g -O1 -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Wall -Wextra -Werror -ISources/CLZ4Codec/include -ISources/CLZ4Codec \
    Sources/CLZ4Codec/*.c Fuzz/CHarness/lz4_block_fuzz.c -llz4 -o "$c_harness" \
    >"$scratch/lz4-block-c-build.log" 2>&1; then
    tail -40 "$scratch/lz4-block-c-build.log" >&2
    echo "fuzz: the C harness lz4-block-c did not build" >&2
    exit 1
fi

# The targets are the binary's own (FuzzTarget.all); a name asked for that it does not have
# is an error, not a run that fuzzes nothing.
known="$(LOGBOOK_FUZZ_LIST_TARGETS=1 "$binary")"$'\n'lz4-block-c
targets="${LOGBOOK_FUZZ_TARGETS:-$known}"
for target in $targets; do
    if ! grep -qx "$target" <<<"$known"; then
        echo "fuzz: no target named $target; the binary has: $(echo $known)" >&2
        exit 1
    fi
done
for target in $known; do
    [ -d "Fuzz/Seeds/$target" ] || { echo "fuzz: $target has no Fuzz/Seeds/$target" >&2; exit 1; }
done

mkdir -p "$scratch/artifacts"
for target in $targets; do
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    cp -n Fuzz/Seeds/"$target"/* "$corpus"/ 2>/dev/null || true
    if [ "$target" = goodies ] && [ -d ../shared/fixtures ]; then
        cp -n ../shared/fixtures/goodies_*.json "$corpus"/ 2>/dev/null || true
    fi
    log="$scratch/$target.log"
    # SWIFT_BACKTRACE off: libFuzzer, not the Swift runtime, must handle a crash to save it.
    runner="$binary"
    [ "$target" = lz4-block-c ] && runner="$c_harness"
    if ! SWIFT_BACKTRACE=enable=no LOGBOOK_FUZZ_TARGET="$target" "$runner" "$corpus" -max_total_time="$seconds" \
        -max_len=65536 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target-" >"$log" 2>&1; then
        echo "fuzz: $target FAILED; input saved under $scratch/artifacts/" >&2
        tail -40 "$log" >&2
        exit 1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $target ok: $runs runs in ${seconds}s, $coverage, corpus $(ls "$corpus" | wc -l)"
done
