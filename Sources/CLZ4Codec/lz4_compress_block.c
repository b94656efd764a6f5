// Compresses one LZ4 block. Its output is any valid block, not liblz4's bytes: liblz4,
// `lz4 -dc` and `logbook_lz4_decode_block` read it. The format's end rules hold: the last
// 5 bytes are literals, and no match starts in the last 12. The fast search here finds
// matches through one hash table of recent positions, skipping ahead faster the longer it
// finds none (as LZ4's own fast mode does); the chained one is in lz4_compress_chained.c.

#include "CLZ4Codec.h"
#include "lz4_compress_chained.h"
#include "lz4_sequences.h"

#define FAST_HASH_LOG 12

size_t logbook_lz4_compress_bound(size_t input_size) {
    return input_size + input_size / 255 + 16;
}

// The fast search; returns where the trailing literals start. Positions in the table are
// 32-bit: a frame's block is at most 4 MiB.
static size_t search_fast(const uint8_t *input, size_t count, lz4_sequence_writer *writer) {
    const size_t match_start_limit = count - LZ4_MATCH_START_MARGIN;
    const size_t match_end_limit = count - LZ4_LITERALS_AT_END;
    uint32_t table[1u << FAST_HASH_LOG];
    memset(table, 0, sizeof table);
    size_t anchor = 0;
    size_t position = 1;
    while (position < match_start_limit) {
        size_t misses = 1u << 6;
        size_t candidate = 0;
        bool found = false;
        while (position < match_start_limit) {
            const uint32_t current = lz4_word(input, position);
            const uint32_t slot = lz4_hash(current, FAST_HASH_LOG);
            candidate = table[slot];
            table[slot] = (uint32_t)position;
            if (candidate < position && position - candidate <= LZ4_WINDOW_SIZE
                && lz4_word(input, candidate) == current) {
                found = true;
                break;
            }
            position += misses >> 6;
            misses += 1;
        }
        if (!found) break;
        while (position > anchor && candidate > 0 && input[position - 1] == input[candidate - 1]) {
            position -= 1;
            candidate -= 1;
        }
        const size_t end = lz4_match_end(
            input, position + LZ4_MATCH_LENGTH_MIN, candidate + LZ4_MATCH_LENGTH_MIN,
            match_end_limit);
        lz4_write_sequence(writer, input, anchor, position, position - candidate, end - position);
        if (!writer->fits) return count;
        position = end;
        anchor = end;
        if (position < match_start_limit) {
            table[lz4_hash(lz4_word(input, position - 2), FAST_HASH_LOG)] =
                (uint32_t)(position - 2);
        }
    }
    return anchor;
}

size_t logbook_lz4_compress_block(
    const uint8_t *input, size_t input_size, uint8_t *output, size_t capacity, uint32_t depth) {
    if (output == NULL) return 0;
    lz4_sequence_writer writer = {output, capacity, 0, true};
    if (input == NULL || input_size == 0) {
        lz4_write_sequence(&writer, output, 0, 0, 0, 0);
        return writer.fits ? writer.position : 0;
    }
    size_t anchor = 0;
    if (input_size >= LZ4_INPUT_MIN_FOR_MATCH) {
        anchor = depth == 0 ? search_fast(input, input_size, &writer)
                            : lz4_search_chained(input, input_size, depth, &writer);
    }
    lz4_write_sequence(&writer, input, anchor, input_size, 0, 0);
    return writer.fits ? writer.position : 0;
}
