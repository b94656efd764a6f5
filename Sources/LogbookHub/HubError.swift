import Logbook
import LogbookShipping

/// Why the hub refused or failed a request. Every case says what to do about it.
public enum HubError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The database holds a schema newer than this build; upgrade the hub first.
    case schemaTooNew(database: Int, build: Int)
    /// The database has no hub schema, or an older one; run `logbook hub migrate`.
    case schemaMissing(database: Int, build: Int)
    /// `--postgres` is not a URL the hub can use.
    case badDatabaseURL(String)
    /// A pushed change breaks one of the engine's bounds; nothing of the push was merged.
    case invalidChange(index: Int, reason: String)
    /// A push or page larger than the hub takes at once.
    case tooLarge(String)
    /// The stream does not exist (and the request may not create it).
    case unknownStream(String)
    /// A stream name that is not 1–128 letters, digits, `.`, `_` or `-`.
    case badStreamName(String)
    /// A row in the database that this build cannot read (written by something else).
    case corruptRow(String)
    /// PostgreSQL refused or could not be reached.
    case database(url: String, detail: String)
    /// The reader's version is below what tombstone GC has collected: take the state anew.
    case snapshotRequired(since: UInt64, collectedBelow: UInt64)
    /// The reader has seen a version the stream has not reached: the database was restored
    /// from an older copy (or another database answers). Take the state anew.
    case diverged(since: UInt64, hubVersion: UInt64)
    /// The reader has seen a version the stream now holds in another epoch (`reason`): the
    /// database was restored from an older copy and has merged since. Take the state anew.
    case epochChanged(since: UInt64, reason: String)
    /// The version at which the pusher's earlier pushes were merged is no longer the one
    /// the stream holds (`reason`): a restore lost them. This push was merged; push the
    /// node's whole state.
    case pushesLost(version: UInt64, reason: String)
    /// A request the hub cannot take as sent (a malformed push body, a bad acknowledgement).
    case badRequest(String)

    /// The reason, with what to do about it.
    public var description: String {
        switch self {
        case .schemaTooNew(let database, let build):
            "the database's hub schema is version \(database), newer than this build's "
                + "\(build): upgrade logbook before serving this database"
        case .schemaMissing(let database, let build):
            "the database's hub schema is version \(database), this build needs \(build): "
                + "run `logbook hub migrate --postgres URL`"
        case .badDatabaseURL(let reason): "--postgres: \(reason)"
        case .invalidChange(let index, let reason):
            "change \(index + 1) refused: \(reason); nothing of the push was merged"
        case .tooLarge(let what): what
        case .unknownStream(let name): "no stream named \(ChangeAdmission.quoted(name))"
        case .badStreamName(let name):
            "stream name \(name) must be \(HubStreamName.rule)"
        case .corruptRow(let what): "the database holds a row this hub cannot read: \(what)"
        case .database(let url, let detail): "PostgreSQL at \(url): \(detail)"
        case .snapshotRequired(let since, let collectedBelow):
            "changes since hub version \(since) are gone: tombstone GC collected below "
                + "\(collectedBelow); take the stream's state from version 0"
        case .diverged(let since, let hubVersion):
            "the reader has seen hub version \(since), but the stream is at \(hubVersion): "
                + "its database was restored from an older copy; take the stream's state anew"
        case .epochChanged(let since, let reason):
            "the reader has seen hub version \(since), but \(reason): the stream's database "
                + "was restored from an older copy; take the stream's state anew"
        case .pushesLost(let version, let reason):
            "this node's earlier pushes were merged at hub version \(version), but \(reason): "
                + "the stream's database was restored from an older copy, which lost them; "
                + "this push was merged, push the node's state"
        case .badRequest(let what): what
        }
    }
}
