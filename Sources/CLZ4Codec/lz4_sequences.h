#ifndef LOGBOOK_LZ4_SEQUENCES_H
#define LOGBOOK_LZ4_SEQUENCES_H

// What both of the project's LZ4 compressors share: the sequence writer (the published
// block format's token, literals, offset and match, into a buffer of fixed capacity) and
// the match finder's word loads, hash and match extension. Internal to CLZ4Codec.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// A block shorter than this is all literals: a match needs 4 bytes and 12 after it.
#define LZ4_INPUT_MIN_FOR_MATCH 13
// A match may start no later than this many bytes before the block's end...
#define LZ4_MATCH_START_MARGIN 12
// ...and must end at least this many bytes before it (the last 5 bytes are literals).
#define LZ4_LITERALS_AT_END 5
#define LZ4_WINDOW_SIZE 65535
#define LZ4_MATCH_LENGTH_MIN 4

typedef struct {
    uint8_t *output;
    size_t capacity;
    size_t position;
    // False once a sequence did not fit: the block is then stored raw.
    bool fits;
} lz4_sequence_writer;

// The bytes after the token that a length of 15 or more takes.
static inline size_t lz4_extension_size(size_t length) {
    return length < 15 ? 0 : (length - 15) / 255 + 1;
}

static inline void lz4_write_extension(lz4_sequence_writer *writer, size_t length) {
    if (length < 15) return;
    size_t rest = length - 15;
    while (rest >= 255) {
        writer->output[writer->position++] = 255;
        rest -= 255;
    }
    writer->output[writer->position++] = (uint8_t)rest;
}

// One sequence: the literals `source[literal_start ..< literal_end]`, then a match of
// `match_length` (>= 4) bytes `offset` (1...65535) back; or, with `offset` 0, the last
// sequence, literals only.
static inline void lz4_write_sequence(
    lz4_sequence_writer *writer, const uint8_t *source, size_t literal_start,
    size_t literal_end, size_t offset, size_t match_length) {
    const size_t literal_length = literal_end - literal_start;
    const size_t match_code = offset == 0 ? 0 : match_length - LZ4_MATCH_LENGTH_MIN;
    const size_t needed = 1 + lz4_extension_size(literal_length) + literal_length
        + (offset == 0 ? 0 : 2 + lz4_extension_size(match_code));
    if (!writer->fits || needed > writer->capacity - writer->position) {
        writer->fits = false;
        return;
    }
    const size_t literal_nibble = literal_length < 15 ? literal_length : 15;
    const size_t match_nibble = match_code < 15 ? match_code : 15;
    writer->output[writer->position++] = (uint8_t)(literal_nibble << 4 | match_nibble);
    lz4_write_extension(writer, literal_length);
    if (literal_length > 0) {
        memcpy(writer->output + writer->position, source + literal_start, literal_length);
    }
    writer->position += literal_length;
    if (offset == 0) return;
    writer->output[writer->position] = (uint8_t)(offset & 0xFF);
    writer->output[writer->position + 1] = (uint8_t)(offset >> 8);
    writer->position += 2;
    lz4_write_extension(writer, match_code);
}

static inline uint32_t lz4_word(const uint8_t *input, size_t position) {
    uint32_t word;
    memcpy(&word, input + position, sizeof word);
    return word;
}

static inline uint32_t lz4_hash(uint32_t word, unsigned log) {
    return (word * 2654435761u) >> (32 - log);
}

// How far the bytes at `position` and `candidate` agree, up to `limit` (the position past
// which a match may not run), eight bytes at a time.
static inline size_t lz4_match_end(
    const uint8_t *input, size_t position, size_t candidate, size_t limit) {
    size_t end = position;
    size_t other = candidate;
    while (end <= limit && limit - end >= 8) {
        uint64_t here;
        uint64_t there;
        memcpy(&here, input + end, sizeof here);
        memcpy(&there, input + other, sizeof there);
        const uint64_t difference = here ^ there;
        if (difference != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return end + (size_t)__builtin_clzll(difference) / 8;
#else
            return end + (size_t)__builtin_ctzll(difference) / 8;
#endif
        }
        end += 8;
        other += 8;
    }
    while (end < limit && input[end] == input[other]) {
        end += 1;
        other += 1;
    }
    return end;
}

#endif
