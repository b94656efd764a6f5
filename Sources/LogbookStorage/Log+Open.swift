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
        log.startPublishingDurableOffset()
        #if LOGBOOK_VERIFY
            log.checkInvariants()
        #endif
        return log
    }

    /// Opens the durable mark and publishes the recovered end, once a sync made it durable
    /// (a writer killed before its sync may have left flushed batches only the OS holds).
    /// Best effort: a log that cannot keep a mark still writes; readers beside it serve its
    /// sealed segments only.
    private func startPublishingDurableOffset() {
        durableMark = DurableMarkWriter.open(
            directory: directory, identity: identity, fileSystem: fileSystem)
        guard (try? active.file.sync()) != nil else { return }
        durableMark?.publish(durableOffset)
    }
}
