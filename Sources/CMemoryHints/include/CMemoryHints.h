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

#endif
