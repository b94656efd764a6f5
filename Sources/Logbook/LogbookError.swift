import LogbookStorage

/// A Logbook operation failed. Wraps storage failures and adds the engine's own.
public struct LogbookError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The storage layer failed; see `storageError`.
        public static let storage = Code(name: "storage")
        /// A record in the log is not a valid change record.
        public static let corruption = Code(name: "corruption")
        /// The directory belongs to another node, or has no node and none was given.
        public static let nodeMismatch = Code(name: "nodeMismatch")
        /// The directory's metadata file is unreadable.
        public static let badMetadata = Code(name: "badMetadata")
        /// An earlier write failed; the in-memory state may be ahead of the log, so the
        /// instance refuses further work. Reopen to recover from the log.
        public static let failed = Code(name: "failed")
        /// Another process has the directory open.
        public static let inUse = Code(name: "inUse")
        /// A peer asked for offsets below the log start: it needs the state instead.
        public static let snapshotRequired = Code(name: "snapshotRequired")
        /// The input exceeds a documented limit (for example, compaction's 2^32 records).
        public static let limitExceeded = Code(name: "limitExceeded")
        /// A change breaks one of `ChangeLimits`' bounds (sizes, depth, versions); the call
        /// changed nothing and the replica stays writable. The message names the change.
        public static let invalidChange = Code(name: "invalidChange")
        /// The Logbook was opened read-only (`LogbookOptions.readOnly`); it takes no writes.
        public static let readOnly = Code(name: "readOnly")
        /// A peer's stated position (offset and epoch) is not one this log holds: it was
        /// restored from an older copy, or is another log. The peer must resync from state.
        public static let diverged = Code(name: "diverged")
        /// A write to a deleted record was refused: crdt-lite never revives a deleted record
        /// (its delete wins over every write, on every replica), so the write would be lost.
        /// Store the data under a new id, or mark the record hidden instead of deleting it.
        public static let recordDeleted = Code(name: "recordDeleted")
        /// A transaction's reads changed under it (another write or a merge) on every
        /// attempt it was given; nothing of it was written.
        public static let conflict = Code(name: "conflict")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// The file involved, if any.
    public var path: String?
    /// The log offset involved, if any.
    public var logOffset: UInt64?
    /// The storage error behind a `.storage` (or `.failed`) error.
    public var storageError: StorageError?
    /// For `.invalidChange` from a merge: the refused change's position in the call.
    public var changeIndex: Int?

    /// Creates an error from its parts.
    public init(
        _ code: Code, _ message: String, path: String? = nil, logOffset: UInt64? = nil,
        storageError: StorageError? = nil, changeIndex: Int? = nil
    ) {
        self.changeIndex = changeIndex
        self.code = code
        self.message = message
        self.path = path
        self.logOffset = logOffset
        self.storageError = storageError
    }

    /// Wraps a storage error.
    public init(_ error: StorageError) {
        // A held directory lock is not a storage failure: say who holds it, as before.
        self.init(
            error.code == .inUse ? .inUse : .storage, error.message, path: error.path,
            logOffset: error.logOffset, storageError: error)
    }

    /// The storage error's text for storage failures, else `code: path (offset): message`,
    /// then the storage error behind it when that says more.
    public var description: String {
        if code == .storage, let storageError { return storageError.description }
        var text = "\(code)"
        if let path { text += ": \(path)" }
        if let logOffset { text += " (log offset \(logOffset))" }
        text += ": \(message)"
        // A cause that says no more than this (a held lock) is not said twice.
        if let storageError, storageError.description != text { text += "; cause: \(storageError)" }
        return text
    }
}
