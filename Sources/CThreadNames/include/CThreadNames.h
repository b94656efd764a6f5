#ifndef LOGBOOK_CTHREADNAMES_H
#define LOGBOOK_CTHREADNAMES_H

/// Names the calling thread as `top -H`, `ps -L`, `perf` and debuggers show it; returns 0,
/// or the error `pthread_setname_np` gave. On Linux the name is cut to its first 15 bytes,
/// the kernel's limit (a longer one is refused whole, not cut).
///
/// Why in C: Foundation's `Thread.name` sets no operating-system name on Linux, and glibc
/// declares `pthread_setname_np` only under `_GNU_SOURCE`, which Swift's Glibc module does
/// not define.
int logbook_name_current_thread(const char *name);

#endif
