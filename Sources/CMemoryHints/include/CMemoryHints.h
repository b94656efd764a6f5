#ifndef LOGBOOK_CMEMORYHINTS_H
#define LOGBOOK_CMEMORYHINTS_H

/// Asks the CPU to start loading the cache line at `address` for a coming write, without
/// waiting for it. Swift has no prefetch of its own; compaction's pass 1 uses this to overlap
/// the cache misses of its winner-table lookups.
static inline void logbook_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// Asks the CPU to start loading the cache line at `address` for a coming read. Search
/// bounds thousands of candidates by a per-name histogram each, one cache miss apiece;
/// asking a few candidates ahead overlaps those misses.
static inline void logbook_prefetch_for_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Asks the CPU to start loading every 64-byte cache line that `bytes` bytes from `address`
/// touch (for a coming write when `for_write`, a constant at every call): a value that
/// straddles a line boundary, or an array's first elements, need more than the line where
/// they begin. Merges ask for the entries, columns and changes a dozen places ahead.
static inline void logbook_prefetch_range(const void *address, long bytes, int for_write) {
    if (bytes <= 0) return;
    const unsigned long first = (unsigned long)address & ~63UL;
    const unsigned long last = ((unsigned long)address + (unsigned long)bytes - 1) & ~63UL;
    for (unsigned long line = first; line <= last; line += 64) {
        if (for_write) {
            __builtin_prefetch((const void *)line, 1, 3);
        } else {
            __builtin_prefetch((const void *)line, 0, 3);
        }
    }
}

/// `logbook_prefetch_range` for a coming write.
static inline void logbook_prefetch_range_for_write(const void *address, long bytes) {
    logbook_prefetch_range(address, bytes, 1);
}

/// `logbook_prefetch_range` for a coming read.
static inline void logbook_prefetch_range_for_read(const void *address, long bytes) {
    logbook_prefetch_range(address, bytes, 0);
}

#endif
