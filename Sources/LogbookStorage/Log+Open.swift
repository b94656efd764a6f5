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
        let outcome = try SegmentRecovery.recover(
            directory: directory, fileSystem: fileSystem, configuration: configuration, clock: clock
        )
        let log = Log(
            directory: directory, fileSystem: fileSystem, configuration: configuration,
            clock: clock,
            sealed: outcome.sealed, active: outcome.active, recovery: outcome.report)
        #if LOGBOOK_VERIFY
            log.checkInvariants()
        #endif
        return log
    }
}
