import Logbook

/// A model could not be stored or read. Each case names the record and says what was
/// expected, so an app's log line is enough to find the bad data.
public enum ModelError: Error, Sendable, CustomStringConvertible {
    /// The engine refused or failed the write or read.
    case engine(LogbookError)
    /// The record holds a column the model cannot decode: `path` is the column and the
    /// keys or indexes inside it, `expected` the type asked for, `found` what is stored
    /// (or "nothing" when a required column is absent).
    case undecodable(recordId: String, path: String, expected: String, found: String)
    /// The model encodes to something that is not a record: a top-level value that is not
    /// keyed, a float that is not finite. (A value nested deeper than
    /// `Value.nestingDepthMax` is the engine's `.invalidChange`, as any write's.)
    case unencodable(recordId: String, path: String, reason: String)
    /// The record was deleted. crdt-lite never revives a deleted record (a delete wins
    /// over every write to it, on every replica), so a write to it would be lost; store
    /// the model under a new id instead.
    case deleted(recordId: String)
    /// `update` found no record with that id.
    case notFound(recordId: String)
    /// A query cannot be asked of the index: `reason` says why.
    case invalidQuery(index: String, reason: String)
    /// A migration's body threw on the record (nothing of its transaction was written).
    case migrationFailed(recordId: String, version: Int, reason: String)
    /// The migrations cannot run as given: `reason` says why (versions repeated, below 1, or
    /// above the model's `schemaVersion`).
    case invalidMigration(model: String, reason: String)

    /// The record and what went wrong, in one line.
    public var description: String {
        switch self {
        case .engine(let error):
            return error.description
        case .undecodable(let recordId, let path, let expected, let found):
            return "\(recordId): column \(path): expected \(expected), found \(found)"
        case .unencodable(let recordId, let path, let reason):
            return "\(recordId): \(path.isEmpty ? "the model" : "column \(path)"): \(reason)"
        case .deleted(let recordId):
            return
                "\(recordId) was deleted, and a deleted record is never revived (crdt-lite's "
                + "rule); write the model under a new id"
        case .notFound(let recordId):
            return "\(recordId): no such record"
        case .invalidQuery(let index, let reason):
            return "query of \(index): \(reason)"
        case .migrationFailed(let recordId, let version, let reason):
            return "\(recordId): migration to version \(version) failed: \(reason)"
        case .invalidMigration(let model, let reason):
            return "migrations of \(model): \(reason)"
        }
    }
}

extension ModelError {
    /// The engine's error for a write to `recordId`: its refusal of a deleted record is
    /// `.deleted`, anything else `.engine`.
    init(_ error: LogbookError, recordId: String) {
        self = error.code == .recordDeleted ? .deleted(recordId: recordId) : .engine(error)
    }

    /// What a transaction of models threw: a `ModelError` as it is, the engine's as
    /// `.engine`. A model body throws nothing else.
    init(transactionError error: any Error) {
        switch error {
        case let error as ModelError: self = error
        case let error as LogbookError: self = .engine(error)
        default:
            self = .engine(LogbookError(.invalidChange, "a model transaction threw \(error)"))
        }
    }
}

extension ModelError: Equatable {
    /// Equal when the case and its fields are; an engine error by its code, message, path
    /// and place (what `LogbookError` says of itself).
    public static func == (lhs: ModelError, rhs: ModelError) -> Bool {
        switch (lhs, rhs) {
        case (.engine(let left), .engine(let right)):
            return left.code == right.code && left.message == right.message
                && left.path == right.path && left.logOffset == right.logOffset
                && left.changeIndex == right.changeIndex
        case (.undecodable(let a, let b, let c, let d), .undecodable(let e, let f, let g, let h)):
            return (a, b, c, d) == (e, f, g, h)
        case (.unencodable(let a, let b, let c), .unencodable(let d, let e, let f)):
            return (a, b, c) == (d, e, f)
        case (.deleted(let left), .deleted(let right)), (.notFound(let left), .notFound(let right)):
            return left == right
        case (.invalidQuery(let a, let b), .invalidQuery(let c, let d)),
            (.invalidMigration(let a, let b), .invalidMigration(let c, let d)):
            return (a, b) == (c, d)
        case (.migrationFailed(let a, let b, let c), .migrationFailed(let d, let e, let f)):
            return (a, b, c) == (d, e, f)
        default:
            return false
        }
    }
}
