// CRC32C (Castagnoli). Two implementations behind one entry point: the SSE4.2 `crc32`
// instruction, chosen at run time when the CPU reports it, and a table-driven slicing-by-8
// fallback that processes eight bytes per step. Both use the reflected polynomial 0x82F63B78
// with an initial and final XOR of 0xFFFFFFFF, so `extend(0, "123456789")` is 0xE3069283.

#include "CCRC32C.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLYNOMIAL_REFLECTED 0x82F63B78u

static uint32_t slicing_table[8][256];
static pthread_once_t slicing_table_once = PTHREAD_ONCE_INIT;

static void build_slicing_table(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 1u) ? (crc >> 1) ^ CRC32C_POLYNOMIAL_REFLECTED : crc >> 1;
        }
        slicing_table[0][byte] = crc;
    }
    // Table k advances a byte that sits k positions before the end of an 8-byte word.
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = slicing_table[0][byte];
        for (int k = 1; k < 8; k++) {
            crc = (crc >> 8) ^ slicing_table[0][crc & 0xFFu];
            slicing_table[k][byte] = crc;
        }
    }
}

uint32_t logbook_crc32c_extend_portable(uint32_t crc, const void *bytes, size_t length) {
    pthread_once(&slicing_table_once, build_slicing_table);
    const uint8_t *cursor = (const uint8_t *)bytes;
    uint32_t state = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, cursor, 8);  // unaligned-safe; x86 and ARM are little-endian here
        uint32_t low = (uint32_t)word ^ state;
        uint32_t high = (uint32_t)(word >> 32);
        state = slicing_table[7][low & 0xFFu] ^ slicing_table[6][(low >> 8) & 0xFFu]
              ^ slicing_table[5][(low >> 16) & 0xFFu] ^ slicing_table[4][low >> 24]
              ^ slicing_table[3][high & 0xFFu] ^ slicing_table[2][(high >> 8) & 0xFFu]
              ^ slicing_table[1][(high >> 16) & 0xFFu] ^ slicing_table[0][high >> 24];
        cursor += 8;
        length -= 8;
    }
    while (length > 0) {
        state = (state >> 8) ^ slicing_table[0][(state ^ *cursor) & 0xFFu];
        cursor++;
        length--;
    }
    return ~state;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_extend_sse42(uint32_t crc, const void *bytes, size_t length) {
    const uint8_t *cursor = (const uint8_t *)bytes;
    uint64_t state = (uint32_t)~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, cursor, 8);
        state = _mm_crc32_u64(state, word);
        cursor += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)state;
    while (length > 0) {
        narrow = _mm_crc32_u8(narrow, *cursor);
        cursor++;
        length--;
    }
    return ~narrow;
}

int logbook_crc32c_is_hardware_accelerated(void) {
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

uint32_t logbook_crc32c_extend(uint32_t crc, const void *bytes, size_t length) {
    if (__builtin_cpu_supports("sse4.2")) {
        return crc32c_extend_sse42(crc, bytes, length);
    }
    return logbook_crc32c_extend_portable(crc, bytes, length);
}
#else
int logbook_crc32c_is_hardware_accelerated(void) { return 0; }

uint32_t logbook_crc32c_extend(uint32_t crc, const void *bytes, size_t length) {
    return logbook_crc32c_extend_portable(crc, bytes, length);
}
#endif
