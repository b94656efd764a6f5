// The chained search, for compaction's output (written once, read often): every position
// goes into its hash's chain (the distance back to the previous position with that hash,
// kept for the last 64 KiB), and each match is the longest among up to `depth` of them.

#include "lz4_compress_chained.h"

#include <stdlib.h>

#define CHAIN_HASH_LOG 15
#define CHAIN_SIZE (1u << 16)
#define NO_POSITION UINT32_MAX

typedef struct {
    uint32_t *heads;   // per hash, the newest position with it, or NO_POSITION
    uint16_t *chain;   // per position mod 64 Ki, the distance back to the previous, or 0
    size_t inserted;   // the positions before this one are in the chains
} hash_chains;

static void insert_up_to(hash_chains *chains, const uint8_t *input, size_t end) {
    while (chains->inserted < end) {
        const size_t position = chains->inserted;
        const uint32_t slot = lz4_hash(lz4_word(input, position), CHAIN_HASH_LOG);
        const uint32_t previous = chains->heads[slot];
        size_t distance = previous == NO_POSITION ? 0 : position - previous;
        if (distance > LZ4_WINDOW_SIZE) distance = 0;
        chains->chain[position & (CHAIN_SIZE - 1)] = (uint16_t)distance;
        chains->heads[slot] = (uint32_t)position;
        chains->inserted += 1;
    }
}

// The longest match at `position` among up to `depth` candidates; its length (0 when none
// reaches 4 bytes) and, through `best_candidate`, where it starts.
static size_t longest_match(
    const hash_chains *chains, const uint8_t *input, size_t position, size_t match_end_limit,
    uint32_t depth, size_t *best_candidate) {
    size_t best_length = 0;
    const uint32_t current = lz4_word(input, position);
    uint32_t head = chains->heads[lz4_hash(current, CHAIN_HASH_LOG)];
    if (head == NO_POSITION) return 0;
    size_t candidate = head;
    for (uint32_t attempts = depth; attempts > 0 && position - candidate <= LZ4_WINDOW_SIZE;
         attempts--) {
        if (lz4_word(input, candidate) == current) {
            const size_t length = lz4_match_end(
                                      input, position + LZ4_MATCH_LENGTH_MIN,
                                      candidate + LZ4_MATCH_LENGTH_MIN, match_end_limit)
                - position;
            if (length > best_length) {
                best_length = length;
                *best_candidate = candidate;
            }
        }
        const size_t step = chains->chain[candidate & (CHAIN_SIZE - 1)];
        if (step == 0 || step > candidate) break;
        candidate -= step;
    }
    return best_length;
}

size_t lz4_search_chained(
    const uint8_t *input, size_t count, uint32_t depth, lz4_sequence_writer *writer) {
    hash_chains chains = {
        malloc(sizeof(uint32_t) << CHAIN_HASH_LOG), malloc(sizeof(uint16_t) * CHAIN_SIZE), 0};
    // With no memory for the chains the block is all literals: still a valid block.
    if (chains.heads == NULL || chains.chain == NULL) {
        free(chains.heads);
        free(chains.chain);
        return 0;
    }
    memset(chains.heads, 0xFF, sizeof(uint32_t) << CHAIN_HASH_LOG);
    memset(chains.chain, 0, sizeof(uint16_t) * CHAIN_SIZE);
    const size_t match_start_limit = count - LZ4_MATCH_START_MARGIN;
    const size_t match_end_limit = count - LZ4_LITERALS_AT_END;
    size_t anchor = 0;
    size_t position = 0;
    while (position < match_start_limit) {
        insert_up_to(&chains, input, position);
        size_t candidate = 0;
        const size_t length =
            longest_match(&chains, input, position, match_end_limit, depth, &candidate);
        if (length < LZ4_MATCH_LENGTH_MIN) {
            position += 1;
            continue;
        }
        lz4_write_sequence(writer, input, anchor, position, position - candidate, length);
        if (!writer->fits) {
            anchor = count;
            break;
        }
        position += length;
        anchor = position;
    }
    free(chains.heads);
    free(chains.chain);
    return anchor;
}
