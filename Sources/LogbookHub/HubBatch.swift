import Logbook
import LogbookCRDT
import NIOCore

/// Pushes reduced to what one merge statement can apply: at most one change per (record,
/// column) — the greatest by (colVersion, dbVersion, nodeId), the earliest among equals —
/// and at most one deletion per record — the first — with the column changes of deleted
/// records dropped. Applying it in one statement gives the state merging the changes one by
/// one, push after push, in order, would (crdt-lite's rules: a deletion drops its record's
/// columns and wins over them; the first deletion accepted is the one kept; a column takes
/// only a strictly greater version). Each kept change remembers the push it came from, so a
/// merge of several pushes can tell each what it accepted.
struct HubBatch {
    struct Deletion {
        var recordId: String
        var dbVersion: UInt64
        var nodeId: UInt64
        var push: Int32
    }

    struct Cell {
        var change: Change<String, String, Value>
        var push: Int32
    }

    private(set) var deletions: [Deletion] = []
    private(set) var cells: [Cell] = []
    /// How many pushes the batch holds.
    let pushCount: Int

    /// Throws `HubError.invalidChange` naming the first change over the engine's bounds
    /// (`ChangeLimits`): a push is refused whole, before anything of it is written.
    static func check(_ changes: [Change<String, String, Value>]) throws(HubError) {
        for index in changes.indices {
            if let reason = ChangeLimits.reasonToRefuse(changes[index]) {
                throw .invalidChange(index: index, reason: reason)
            }
        }
    }

    /// Reduces pushes that each passed `check`, the earliest first.
    init(pushes: [[Change<String, String, Value>]]) {
        pushCount = pushes.count
        var deleted: [String: Int] = [:]
        var latest: [CellKey: Int] = [:]
        var kept: [Cell] = []
        for (push, changes) in pushes.enumerated() {
            let push = Int32(truncatingIfNeeded: push)
            for change in changes {
                guard let column = change.colName else {
                    if deleted[change.recordId] == nil {
                        deleted[change.recordId] = deletions.count
                        deletions.append(
                            Deletion(
                                recordId: change.recordId, dbVersion: change.dbVersion,
                                nodeId: change.nodeId, push: push))
                    }
                    continue
                }
                let key = CellKey(recordId: change.recordId, column: column)
                if let place = latest[key] {
                    if Self.isGreater(change, than: kept[place].change) {
                        kept[place] = Cell(change: change, push: push)
                    }
                } else {
                    latest[key] = kept.count
                    kept.append(Cell(change: change, push: push))
                }
            }
        }
        cells = deleted.isEmpty ? kept : kept.filter { deleted[$0.change.recordId] == nil }
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
