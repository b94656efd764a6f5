#ifndef LOGBOOK_CLZ4CODEC_H
#define LOGBOOK_CLZ4CODEC_H

// The project's own LZ4 block codec, written here from the published block format, for
// platforms with no system liblz4 (Apple's). Swift reaches it through `LZ4BlockEncoder`
// and `LZ4BlockDecoder`; its byte loops are C so that an app's debug build, which compiles
// Swift at -Onone, does not pay Swift's unoptimized cost per byte
// (docs/decisions/0019-the-own-lz4-loops-in-c.md).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Decodes the LZ4 block `input[0 ..< input_size]` into `output`, writing from `start` at
/// most `capacity` bytes. A match may reach back to `history_start` (<= `start`): the
/// frame's earlier blocks when they are linked, `start` when blocks are independent.
/// Returns the bytes written, or -1 for a malformed block (a length past either end, an
/// offset of 0 or before the history, a block that does not end with literals). Every
/// length and offset is checked before a byte moves; bytes past those written, within
/// `capacity`, may have been overwritten.
ptrdiff_t logbook_lz4_decode_block(
    const uint8_t *input, size_t input_size, uint8_t *output, size_t start, size_t capacity,
    size_t history_start);

/// Compresses `input[0 ..< input_size]` into `output` (room for `capacity` bytes) as one
/// LZ4 block. `depth` 0 takes the fast search (one hash table of recent positions); a
/// larger `depth` the chained search, the longest match among up to `depth` candidates.
/// Returns the bytes written, or 0 when the block does not fit (the caller stores it raw).
size_t logbook_lz4_compress_block(
    const uint8_t *input, size_t input_size, uint8_t *output, size_t capacity, uint32_t depth);

/// The most a block of `input_size` bytes can take compressed.
size_t logbook_lz4_compress_bound(size_t input_size);

#ifdef __cplusplus
}
#endif

#endif
