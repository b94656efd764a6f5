extension Log {
    /// Opens the log in `directory`, creating the directory and a first segment when
    /// `createIfMissing` and nothing is there; runs recovery (see `SegmentRecovery`).
    ///
    /// Throws `.notFound` for a missing directory without `createIfMissing`, `.corruption`
    /// naming the file and byte for damage that is not a torn tail, and I/O errors.
    public static func open(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        configuration: LogConfiguration = LogConfiguration(), clock: (any LogClock)? = nil,
        createIfMissing: Bool = true
    ) throws(StorageError) -> Log {
        try configuration.validate()
        if !fileSystem.exists(directory) {
            guard createIfMissing else {
                throw StorageError(.notFound, "no log directory", path: directory)
            }
            try fileSystem.createDirectory(directory)
        }
        // Another process (or open) appending to or rewriting the same log would corrupt it.
        let lease = try fileSystem.lockDirectory(directory, exclusive: true)
        let outcome: SegmentRecovery.Outcome
        do {
            outcome = try SegmentRecovery.recover(
                directory: directory, fileSystem: fileSystem, configuration: configuration,
                clock: clock)
        } catch {
            lease?.release()
            throw error
        }
        let log = Log(
            directory: directory, fileSystem: fileSystem, configuration: configuration,
            clock: clock,
            sealed: outcome.sealed, active: outcome.active, recovery: outcome.report,
            epochs: try LogEpochs.read(directory: directory, fileSystem: fileSystem),
            chain: outcome.chain, history: outcome.history)
        log.lease = lease
        #if LOGBOOK_VERIFY
            log.checkInvariants()
        #endif
        return log
    }

    /// Opens the log in `directory` for reading only: nothing in the directory changes.
    ///
    /// Recovery checks what a writable open checks and reports what it would do, without
    /// doing it: a torn tail of the active segment is reported and read around (not cut); a
    /// missing or stale index is rebuilt in memory; leftover temporary files stay; the
    /// manifest is checked, not written. A log with an interrupted compaction swap (a
    /// `.seg.swap` file) is refused with `.readOnly`: only a writer may finish or set it
    /// aside. Appending, syncing, sealing and rewriting throw `.readOnly`. Works on a
    /// read-only directory or mount.
    ///
    /// Throws `.notFound` for a directory without segments, `.corruption` as `open` does.
    public static func openReadOnly(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        configuration: LogConfiguration = LogConfiguration()
    ) throws(StorageError) -> Log {
        try configuration.validate()
        guard fileSystem.exists(directory) else {
            throw StorageError(.notFound, "no log directory", path: directory)
        }
        // Shared: readers together, but not while a writer has the log.
        let lease = try fileSystem.lockDirectory(directory, exclusive: false)
        let outcome: SegmentRecovery.Outcome
        do {
            outcome = try SegmentRecovery.recover(
                directory: directory, fileSystem: fileSystem, configuration: configuration,
                clock: nil, readOnly: true)
        } catch {
            lease?.release()
            throw error
        }
        let log = Log(
            directory: directory, fileSystem: fileSystem, configuration: configuration,
            clock: nil, sealed: outcome.sealed, active: outcome.active, recovery: outcome.report,
            epochs: try LogEpochs.read(directory: directory, fileSystem: fileSystem),
            chain: outcome.chain, history: outcome.history, isReadOnly: true)
        log.lease = lease
        return log
    }
}
