/// A storage operation failed: I/O, corruption, or input the format does not allow.
///
/// Carries what an operator needs to find the problem: the file, the byte offset, the log
/// offset, and the underlying cause (an errno). Never payload bytes.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A system call failed; `errno` says why.
        public static let io = Code(name: "io")
        /// Bytes on disk fail a check (checksum, magic, length, chain, offsets).
        public static let corruption = Code(name: "corruption")
        /// A format version, codec or feature this build does not know.
        public static let unsupported = Code(name: "unsupported")
        /// A caller passed something the format cannot hold (too large, out of order).
        public static let invalidArgument = Code(name: "invalidArgument")
        /// A file or directory that must exist does not.
        public static let notFound = Code(name: "notFound")
        /// A file or directory that must not exist does.
        public static let alreadyExists = Code(name: "alreadyExists")
        /// The log was closed.
        public static let closed = Code(name: "closed")
        /// A write to a log opened read-only, or a read-only open of a log that needs a
        /// writer first (an interrupted compaction to finish).
        public static let readOnly = Code(name: "readOnly")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// The file involved, if any.
    public var path: String?
    /// The byte position in that file, if known.
    public var byteOffset: Int64?
    /// The log offset (record sequence) involved, if known.
    public var logOffset: UInt64?
    /// The operating-system error number behind an `.io` failure.
    public var errno: Int32?

    /// Creates an error from its parts.
    public init(
        _ code: Code, _ message: String, path: String? = nil, byteOffset: Int64? = nil,
        logOffset: UInt64? = nil, errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.byteOffset = byteOffset
        self.logOffset = logOffset
        self.errno = errno
    }

    /// `corruption: <path> at byte 4096 (log offset 17): batch checksum mismatch (errno 5)`.
    public var description: String {
        var location: [String] = []
        if let path { location.append(path) }
        if let byteOffset { location.append("at byte \(byteOffset)") }
        if let logOffset { location.append("(log offset \(logOffset))") }
        var text = "\(code)"
        if !location.isEmpty { text += ": " + location.joined(separator: " ") }
        text += ": \(message)"
        if let errno { text += " (errno \(errno): \(describeErrno(errno)))" }
        return text
    }

    /// The same error with a path and byte offset filled in where absent.
    func located(path: String, byteOffset: Int64? = nil) -> StorageError {
        var copy = self
        if copy.path == nil { copy.path = path }
        if copy.byteOffset == nil { copy.byteOffset = byteOffset }
        return copy
    }
}
