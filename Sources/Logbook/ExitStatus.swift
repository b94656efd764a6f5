import LogbookStorage

/// The process exit status a command reports for a failure, as the README documents it:
/// 1 for operating errors, 2 for input the limits refuse (or a write to a deleted record), 3 for corruption, 4 for a
/// directory that is not a Logbook (or another node's). 64 (a usage error) is the argument
/// parser's.
public enum ExitStatus {
    /// The status for `error`.
    public static func of(_ error: any Error) -> Int32 {
        switch error {
        case let error as LogbookError:
            if error.code == .corruption || error.storageError?.code == .corruption { return 3 }
            if error.code == .nodeMismatch || error.code == .badMetadata { return 4 }
            if error.code == .invalidChange || error.code == .recordDeleted { return 2 }
        case let error as StorageError:
            if error.code == .corruption { return 3 }
        default:
            break
        }
        return 1
    }
}
