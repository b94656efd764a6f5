import CWriteback

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls whose names or meaning differ between Linux and Darwin, one place for
/// all of them (a tidy test keeps them here). Everything else the storage layer calls
/// (`pread`, `pwrite`, `ftruncate`, `fstat`, `flock`, ...) is POSIX under one name on both.
enum Platform {
    /// `open(2)`.
    static func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) -> Int32 {
        open(path, flags, mode)
    }

    /// `close(2)`.
    static func closeFile(_ descriptor: Int32) -> Int32 { close(descriptor) }

    /// `rename(2)`.
    static func renameFile(_ source: String, _ destination: String) -> Int32 {
        rename(source, destination)
    }

    /// The calling thread's `errno`.
    static var lastError: Int32 { errno }

    /// Makes a file's written data durable. Linux: `fdatasync`. Darwin: `fsync` only hands
    /// the data to the drive, whose cache a power cut may still lose, so `F_FULLFSYNC`
    /// (the drive flushes too), falling back to `fsync` on file systems without it.
    static func syncData(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
            return fsync(descriptor)
        #else
            return fdatasync(descriptor)
        #endif
    }

    /// Makes a directory's entries durable (`fsync` of its descriptor; on Darwin
    /// `F_FULLFSYNC`, as for data).
    static func syncDirectory(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Sleeps the calling thread (`usleep`), for waits of milliseconds off any async task.
    static func pause(microseconds: UInt32) {
        _ = usleep(microseconds)
    }

    /// Starts writing a file's dirty bytes in `offset..<offset + count` to the device without
    /// waiting (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`, through `CWriteback`); 0 or
    /// -1. Darwin has no such call: nothing is done there.
    static func startWriteback(_ descriptor: Int32, offset: Int64, count: Int64) -> Int32 {
        logbook_start_writeback(descriptor, offset, count)
    }
}
