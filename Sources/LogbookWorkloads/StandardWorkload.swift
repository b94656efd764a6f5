import Logbook
import LogbookCRDT

/// The standard workload that benchmarks, the demo and the performance notes use.
///
/// - `recordCount` records `record/<n>`, each first inserted with five columns: `name`
///   (short string), `count` (int), `state` (short string), `level` (int), `room` (short string).
/// - Then, until `operationCount` operations: 89% update one random column of a uniformly
///   random record, 10% delete one random field, 1% delete one random record.
/// Values are short: strings of 4–12 bytes, ints below 100,000. Seeded, so every run is the
/// same sequence.
public struct StandardWorkload: Sendable {
    /// One operation of the workload.
    public enum Operation: Sendable {
        /// Insert or update fields of a record.
        case upsert(String, [(String, Value)])
        /// Delete one field.
        case deleteField(String, String)
        /// Delete a record.
        case deleteRecord(String)
    }

    /// The five columns of every record.
    public static let columns = ["name", "count", "state", "level", "room"]
    private static let states = ["on", "off", "idle", "heating", "cooling", "away"]
    private static let rooms = ["kitchen", "hall", "office", "bedroom", "garage", "attic", "porch"]

    /// Records in the workload.
    public let recordCount: Int
    private var random: SeededGenerator
    private var inserted = 0

    /// A workload over `recordCount` records, seeded.
    public init(recordCount: Int = 100_000, seed: UInt64 = 42) {
        precondition(recordCount > 0, "recordCount must be positive")
        self.recordCount = recordCount
        random = SeededGenerator(seed: seed)
    }

    /// The next operation: first every record's insertion, then the random mix.
    public mutating func next() -> Operation {
        if inserted < recordCount {
            let number = inserted
            inserted += 1
            return .upsert(
                "record/\(number)",
                Self.columns.map { ($0, value(for: $0, number: number)) })
        }
        let recordId = "record/\(Int.random(in: 0..<recordCount, using: &random))"
        let column = Self.columns[Int.random(in: 0..<Self.columns.count, using: &random)]
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 89 { return .upsert(recordId, [(column, value(for: column, number: roll))]) }
        if roll < 99 { return .deleteField(recordId, column) }
        return .deleteRecord(recordId)
    }

    private mutating func value(for column: String, number: Int) -> Value {
        switch column {
        case "count", "level": return .int(Int64.random(in: 0..<100_000, using: &random))
        case "state":
            return .string(Self.states[Int.random(in: 0..<Self.states.count, using: &random)])
        case "room":
            return .string(Self.rooms[Int.random(in: 0..<Self.rooms.count, using: &random)])
        default: return .string("device-\(number % 10_000)")
        }
    }
}

extension StandardWorkload {
    /// The workload's operations until they produce `changes` changes, generated up front so
    /// a benchmark keeps the generator's cost out of its timings.
    public static func operations(records: Int, changes: Int, seed: UInt64 = 42) -> [Operation] {
        var workload = StandardWorkload(recordCount: records, seed: seed)
        var operations: [Operation] = []
        var produced = 0
        while produced < changes {
            let operation = workload.next()
            if case .upsert(_, let fields) = operation {
                produced += fields.count
            } else {
                produced += 1
            }
            operations.append(operation)
        }
        return operations
    }

    /// The changes `operations` make on an in-memory replica of `nodeId`: what another node
    /// would ship.
    public static func changes(of operations: [Operation], nodeId: NodeId = 2) -> [Change<
        String, String, Value
    >] {
        let source = CRDT<String, String, Value>(nodeId: nodeId)
        var changes: [Change<String, String, Value>] = []
        for operation in operations {
            switch operation {
            case .upsert(let recordId, let fields):
                changes += source.insertOrUpdate(recordId, fields: fields)
            case .deleteField(let recordId, let column):
                if let change = source.deleteField(recordId, fieldName: column) {
                    changes.append(change)
                }
            case .deleteRecord(let recordId):
                if let change = source.deleteRecord(recordId) { changes.append(change) }
            }
        }
        return changes
    }
}

extension StandardWorkload.Operation {
    /// The operation as a value `Logbook.write(_:)` takes.
    public var localWrite: LocalWrite {
        switch self {
        case .upsert(let recordId, let fields): return .insertOrUpdate(recordId, fields: fields)
        case .deleteField(let recordId, let column):
            return .deleteField(recordId, fieldName: column)
        case .deleteRecord(let recordId): return .deleteRecord(recordId)
        }
    }

    /// Performs the operation on a replica state alone, by the calls the engine's write path
    /// makes under its lock (the column-version refusal included, and an upsert's changes
    /// written over `changes`, the array the previous upsert left, as the engine reuses the
    /// array it returned); returns the changes it produced. What a Logbook call costs beyond
    /// this is admission, the lock, the log and the async call.
    public func apply(
        to state: ReplicaState, reusing changes: inout [Change<String, String, Value>]
    )
        throws(ColumnVersionAtLimit) -> Int
    {
        switch self {
        case .upsert(let recordId, let fields):
            try state.insertOrUpdate(
                recordId, fields: fields, refusingColumnVersionsFrom: ChangeLimits.versionMax,
                reusing: &changes)
            return changes.count
        case .deleteField(let recordId, let column):
            let change = try state.deleteField(
                recordId, fieldName: column, refusingColumnVersionsFrom: ChangeLimits.versionMax)
            return change == nil ? 0 : 1
        case .deleteRecord(let recordId):
            return state.deleteRecord(recordId) == nil ? 0 : 1
        }
    }

    /// Performs the operation on a Logbook; returns the changes it produced. Inlinable, so
    /// that a benchmark's loop calls the Logbook directly: an async call of its own out of
    /// line is a task allocation and free per operation, about 3 % of a one-change write.
    @inlinable
    public nonisolated(nonsending) func apply(to logbook: Logbook) async throws(LogbookError)
        -> Int
    {
        switch self {
        case .upsert(let recordId, let fields):
            return try await logbook.insertOrUpdate(recordId, fields: fields).count
        case .deleteField(let recordId, let column):
            return try await logbook.deleteField(recordId, fieldName: column) == nil ? 0 : 1
        case .deleteRecord(let recordId):
            return try await logbook.deleteRecord(recordId) == nil ? 0 : 1
        }
    }
}

extension StandardWorkload {
    /// `operations` made by `writers` tasks, one call each (writer `w` makes every
    /// `writers`-th operation from `w`), as the group-commit benchmarks make them; the
    /// changes they produced.
    public static func apply(_ operations: [Operation], to logbook: Logbook, writers: Int)
        async throws -> Int
    {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var changes = 0
                    for index in stride(from: writer, to: operations.count, by: writers) {
                        changes += try await operations[index].apply(to: logbook)
                    }
                    return changes
                }
            }
            return try await group.reduce(0, +)
        }
    }
}
