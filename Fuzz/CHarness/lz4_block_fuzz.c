// libFuzzer harness for the project's own LZ4 block codec (Sources/CLZ4Codec), built with
// clang -fsanitize=fuzzer,address,undefined so that a read or write one byte out of bounds
// stops the run, and linked with liblz4 as the reference. scripts/fuzz.sh builds and runs it
// as the target lz4-block-c. The first byte picks what the rest is:
//   even: a block to decode, independent (compared with LZ4_decompress_safe: where both read
//         it, they read the same bytes) and after a history of 64 KiB (linked blocks);
//   odd:  content to compress with the fast and the chained search (depth from the mode
//         byte), which both decoders must give back exactly.

#include "CLZ4Codec.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_SIZE 65536

static void expect(int condition, const char *what) {
    if (!condition) {
        fprintf(stderr, "lz4-block-c: %s\n", what);
        abort();
    }
}

static void decode_hostile(const uint8_t *block, size_t size, size_t capacity) {
    uint8_t *own = malloc(capacity + 1);
    uint8_t *reference = malloc(capacity + 1);
    expect(own != NULL && reference != NULL, "out of memory");
    const ptrdiff_t written = logbook_lz4_decode_block(block, size, own, 0, capacity, 0);
    expect(written <= (ptrdiff_t)capacity, "the decoder wrote past its capacity");
    const int expected = LZ4_decompress_safe(
        (const char *)block, (char *)reference, (int)size, (int)capacity);
    if (written >= 0 && expected >= 0) {
        expect(written == expected, "the decoders disagree on a block's length");
        expect(memcmp(own, reference, (size_t)written) == 0, "the decoders disagree on bytes");
    }
    free(own);
    free(reference);

    // Linked: a match may reach back into the history, never before it.
    uint8_t *linked = malloc(HISTORY_SIZE + capacity + 1);
    expect(linked != NULL, "out of memory");
    for (size_t index = 0; index < HISTORY_SIZE; index++) linked[index] = (uint8_t)(index * 7);
    const ptrdiff_t linked_written = logbook_lz4_decode_block(
        block, size, linked, HISTORY_SIZE, capacity, HISTORY_SIZE / 2);
    expect(linked_written <= (ptrdiff_t)capacity, "the linked decode wrote past its capacity");
    free(linked);
}

static void round_trip(const uint8_t *content, size_t size, uint32_t depth) {
    const size_t bound = logbook_lz4_compress_bound(size);
    uint8_t *block = malloc(bound);
    uint8_t *decoded = malloc(size + 1);
    expect(block != NULL && decoded != NULL, "out of memory");
    const size_t written = logbook_lz4_compress_block(content, size, block, bound, depth);
    expect(written > 0 && written <= bound, "a block within its bound did not fit");
    const ptrdiff_t own = logbook_lz4_decode_block(block, written, decoded, 0, size, 0);
    expect(own == (ptrdiff_t)size, "the own decoder reads another length");
    expect(size == 0 || memcmp(decoded, content, size) == 0, "the own decoder reads other bytes");
    const int reference = LZ4_decompress_safe(
        (const char *)block, (char *)decoded, (int)written, (int)size);
    expect(reference == (int)size, "liblz4 refuses or misreads a block the own codec wrote");
    expect(size == 0 || memcmp(decoded, content, size) == 0, "liblz4 reads other bytes");
    // One byte short of the room it needs, the block is refused, not cut.
    if (written > 1) {
        expect(logbook_lz4_compress_block(content, size, block, written - 1, depth) == 0,
            "a block written into too little room");
    }
    free(block);
    free(decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const uint8_t mode = data[0];
    const uint8_t *rest = data + 1;
    const size_t rest_size = size - 1;
    if (mode % 2 == 0) {
        // The room to decode into: from the mode byte, from none to 64 times the block.
        const size_t capacity = (rest_size + 1) * (size_t)(mode >> 2);
        decode_hostile(rest, rest_size, capacity);
    } else {
        round_trip(rest, rest_size, 0);
        round_trip(rest, rest_size, 1u << (mode >> 5));
    }
    return 0;
}
