#ifndef LOGBOOK_CCRC32C_H
#define LOGBOOK_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Extends a CRC32C (Castagnoli, reflected polynomial 0x82F63B78) over `length` bytes.
/// Start a new checksum with `crc = 0`; chain calls by passing the previous result.
/// Uses the SSE4.2 crc32 instruction when the CPU has it, else portable slicing-by-8.
uint32_t logbook_crc32c_extend(uint32_t crc, const void *bytes, size_t length);

/// The portable slicing-by-8 path, exposed so tests can compare it with the hardware path.
uint32_t logbook_crc32c_extend_portable(uint32_t crc, const void *bytes, size_t length);

/// Non-zero when `logbook_crc32c_extend` uses the hardware instruction on this CPU.
int logbook_crc32c_is_hardware_accelerated(void);

#ifdef __cplusplus
}
#endif

#endif
