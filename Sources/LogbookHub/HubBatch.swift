import Logbook
import LogbookCRDT
import NIOCore

/// A push reduced to what one merge statement can apply: at most one change per (record,
/// column) — the greatest by (colVersion, dbVersion, nodeId) — and at most one deletion per
/// record — the first — with the column changes of deleted records dropped. Applying it in
/// one statement gives the state merging the push's changes one by one, in order, would
/// (crdt-lite's rules: a deletion drops its record's columns and wins over them; the first
/// deletion accepted is the one kept; a column takes only a strictly greater version).
struct HubBatch {
    struct Deletion {
        var recordId: String
        var dbVersion: UInt64
        var nodeId: UInt64
    }

    private(set) var deletions: [Deletion] = []
    private(set) var cells: [Change<String, String, Value>] = []

    /// Checks every change against the engine's bounds (`ChangeLimits`) and reduces them;
    /// throws `HubError.invalidChange` naming the first change refused, before anything is
    /// written.
    init(_ changes: [Change<String, String, Value>]) throws(HubError) {
        var deleted: [String: Int] = [:]
        var latest: [CellKey: Int] = [:]
        var kept: [Change<String, String, Value>] = []
        for (index, change) in changes.enumerated() {
            if let reason = ChangeLimits.reasonToRefuse(change) {
                throw .invalidChange(index: index, reason: reason)
            }
            guard let column = change.colName else {
                if deleted[change.recordId] == nil {
                    deleted[change.recordId] = deletions.count
                    deletions.append(
                        Deletion(
                            recordId: change.recordId, dbVersion: change.dbVersion,
                            nodeId: change.nodeId))
                }
                continue
            }
            let key = CellKey(recordId: change.recordId, column: column)
            if let place = latest[key] {
                if Self.isGreater(change, than: kept[place]) { kept[place] = change }
            } else {
                latest[key] = kept.count
                kept.append(change)
            }
        }
        cells = deleted.isEmpty ? kept : kept.filter { deleted[$0.recordId] == nil }
    }

    var isEmpty: Bool { deletions.isEmpty && cells.isEmpty }

    /// crdt-lite's default rule: a strictly greater (colVersion, dbVersion, nodeId).
    static func isGreater(
        _ change: Change<String, String, Value>, than other: Change<String, String, Value>
    ) -> Bool {
        (change.colVersion, change.dbVersion, change.nodeId)
            > (other.colVersion, other.dbVersion, other.nodeId)
    }

    private struct CellKey: Hashable {
        var recordId: String
        var column: String
    }
}

/// How the hub stores versions and node ids: PostgreSQL's `bigint` is signed, so values are
/// mapped to keep their unsigned order. Versions are at most `ChangeLimits.versionMax`
/// (2^63 − 1) and are stored as they are; node ids use all 64 bits (crdt-lite draws them at
/// random), so their top bit is flipped, which maps UInt64 order onto Int64 order.
enum HubColumns {
    static func version(_ value: UInt64) -> Int64 { Int64(bitPattern: value) }
    static func version(stored: Int64) -> UInt64 { UInt64(bitPattern: stored) }
    static func nodeId(_ value: UInt64) -> Int64 { Int64(bitPattern: value ^ (1 << 63)) }
    static func nodeId(stored: Int64) -> UInt64 { UInt64(bitPattern: stored) ^ (1 << 63) }

    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// A value in the log's binary form (`ValueCodec`), so the hub stores what the engine
    /// stores and reads it back with the same bounds.
    static func bytes(_ value: Value) -> ByteBuffer {
        var encoded: [UInt8] = []
        ValueCodec.append(value, to: &encoded)
        return ByteBuffer(bytes: encoded)
    }
}
