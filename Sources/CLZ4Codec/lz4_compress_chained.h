#ifndef LOGBOOK_LZ4_COMPRESS_CHAINED_H
#define LOGBOOK_LZ4_COMPRESS_CHAINED_H

#include "lz4_sequences.h"

// The chained search over `input[0 ..< count]` (count >= LZ4_INPUT_MIN_FOR_MATCH), the
// longest match among up to `depth` candidates; returns where the trailing literals start.
size_t lz4_search_chained(
    const uint8_t *input, size_t count, uint32_t depth, lz4_sequence_writer *writer);

#endif
