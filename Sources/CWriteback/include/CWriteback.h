#ifndef LOGBOOK_CWRITEBACK_H
#define LOGBOOK_CWRITEBACK_H

#include <stdint.h>

/// Asks the kernel to start writing a file's dirty pages in `[offset, offset + length)` to
/// the device, without waiting for them; returns 0, or -1 with `errno` set. Linux:
/// `sync_file_range` with `SYNC_FILE_RANGE_WRITE` alone. Elsewhere it does nothing and
/// returns 0.
///
/// It never waits: with a wait flag, `sync_file_range` would consume a write-back error that
/// the next `fdatasync` of the same descriptor must report. It makes nothing durable (no
/// metadata, no device cache flush); the log still syncs as before, with less left to write.
///
/// Why in C: glibc declares `sync_file_range` only under `_GNU_SOURCE`, which Swift's Glibc
/// module does not define.
int logbook_start_writeback(int descriptor, int64_t offset, int64_t length);

#endif
