// Decodes one LZ4 block: sequences of a token (a literal length and a match length, 4 bits
// each), the literals, a two-byte little-endian offset and the match; the last sequence is
// literals only. A hostile block can make it fail, never read or write out of bounds: every
// length is checked against the input's end and the output's room, and every offset against
// the history a match may reach, before a byte moves. All arithmetic is on size_t, with each
// subtraction's operands ordered first, so nothing wraps.

#include "CLZ4Codec.h"

#include <stdbool.h>
#include <string.h>

// The bytes `copy_wide` moves at a time.
#define WIDE_COPY 16
#define MATCH_LENGTH_MIN 4

// Copies `count` bytes 16 at a time, through at most 15 bytes past both ends: where the
// block leaves room for that, one or two wide moves replace a call to memcpy for the short
// runs most sequences are. A match copied this way is at least 16 bytes back, so each move
// reads only bytes already written.
static inline void copy_wide(uint8_t *target, const uint8_t *source, size_t count) {
    size_t moved = 0;
    do {
        uint8_t chunk[WIDE_COPY];
        memcpy(chunk, source + moved, WIDE_COPY);
        memcpy(target + moved, chunk, WIDE_COPY);
        moved += WIDE_COPY;
    } while (moved < count);
}

// A token's 4-bit length, extended by the bytes after it while they are 255; false when the
// extension runs past the input. The sum is at most 255 times the block's size plus 15.
static inline bool read_length(
    size_t nibble, const uint8_t *input, size_t input_size, size_t *position, size_t *length) {
    if (nibble != 15) {
        *length = nibble;
        return true;
    }
    size_t total = 15;
    for (;;) {
        if (*position >= input_size) return false;
        const uint8_t byte = input[*position];
        *position += 1;
        total += byte;
        if (byte != 255) {
            *length = total;
            return true;
        }
    }
}

// Copies `length` bytes from `offset` back to `position`. A match closer than its length
// repeats the bytes between: each copy doubles what is there to repeat, so no copy overlaps
// its source.
static inline void copy_match(uint8_t *output, size_t position, size_t offset, size_t length) {
    const size_t source = position - offset;
    if (offset >= length) {
        memcpy(output + position, output + source, length);
        return;
    }
    size_t written = 0;
    while (written < length) {
        size_t chunk = offset + written;
        if (chunk > length - written) chunk = length - written;
        memcpy(output + position + written, output + source, chunk);
        written += chunk;
    }
}

ptrdiff_t logbook_lz4_decode_block(
    const uint8_t *input, size_t input_size, uint8_t *output, size_t start, size_t capacity,
    size_t history_start) {
    if (input == NULL || output == NULL || history_start > start) return -1;
    if (capacity > SIZE_MAX - start || capacity > (size_t)PTRDIFF_MAX) return -1;
    const size_t output_end = start + capacity;
    size_t in = 0;
    size_t out = start;
    for (;;) {
        if (in >= input_size) return -1;
        const uint8_t token = input[in];
        in += 1;
        size_t literal_length;
        if (!read_length(token >> 4, input, input_size, &in, &literal_length)) return -1;
        const size_t input_left = input_size - in;
        const size_t room = output_end - out;
        if (literal_length > input_left || literal_length > room) return -1;
        if (input_left - literal_length >= WIDE_COPY && room - literal_length >= WIDE_COPY) {
            copy_wide(output + out, input + in, literal_length);
        } else {
            memcpy(output + out, input + in, literal_length);
        }
        in += literal_length;
        out += literal_length;
        if (in == input_size) return (ptrdiff_t)(out - start);
        if (input_size - in < 2) return -1;
        const size_t offset = (size_t)input[in] | ((size_t)input[in + 1] << 8);
        in += 2;
        if (offset == 0 || offset > out - history_start) return -1;
        size_t extra;
        if (!read_length(token & 15, input, input_size, &in, &extra)) return -1;
        const size_t match_room = output_end - out;
        if (extra > match_room || match_room - extra < MATCH_LENGTH_MIN) return -1;
        const size_t match_length = extra + MATCH_LENGTH_MIN;
        if (offset >= WIDE_COPY && match_room - match_length >= WIDE_COPY) {
            copy_wide(output + out, output + out - offset, match_length);
        } else {
            copy_match(output, out, offset, match_length);
        }
        out += match_length;
    }
}
