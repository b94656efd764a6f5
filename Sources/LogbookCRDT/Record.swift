/// A live record: its visible fields and the version of every column ever written.
///
/// Stored compactly: one array of columns (name, version, value or nil once deleted), found
/// by a linear scan, which for the handful of columns a record usually has beats hashing
/// the name into two dictionaries. Past `indexThreshold` columns a name-to-slot index keeps
/// lookups O(1), so very wide records stay linear to update. `fields` and `columnVersions`
/// present crdt-lite's dictionary view (built on access); hot code uses `field(_:)` and
/// `columnVersion(_:)`.
///
/// Invariants: column names are unique; the index, when present, maps every name to its
/// slot; `lowestLocalDbVersion` and `highestLocalDbVersion` bound every `localDbVersion`
/// written into the record (they start at `UInt64.max` and 0 and only ever widen).
public struct Record<C: Hashable & Codable & Sendable, V: Hashable & Codable & Sendable>: Sendable {
    /// One column: its name, winning version, and value (nil once the field is deleted).
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var column: C
        @usableFromInline var version: ColumnVersion
        @usableFromInline var value: V?

        @inlinable init(column: C, version: ColumnVersion, value: V?) {
            self.column = column
            self.version = version
            self.value = value
        }
    }

    /// Records wider than this keep a name-to-slot index.
    @usableFromInline static var indexThreshold: Int { 24 }

    @usableFromInline var slots: ContiguousArray<Slot>
    @usableFromInline var index: [C: Int]?
    /// The smallest local version written into this record.
    public var lowestLocalDbVersion: UInt64
    /// The largest local version written into this record.
    public var highestLocalDbVersion: UInt64

    /// An empty record.
    @inlinable public init() {
        slots = []
        index = nil
        lowestLocalDbVersion = .max
        highestLocalDbVersion = 0
    }

    /// The visible fields, as crdt-lite exposes them. O(columns) to build.
    public var fields: [C: V] {
        var fields: [C: V] = [:]
        fields.reserveCapacity(slots.count)
        for slot in slots {
            if let value = slot.value { fields[slot.column] = value }
        }
        return fields
    }

    /// The version of every column written, deleted fields included. O(columns) to build.
    public var columnVersions: [C: ColumnVersion] {
        var versions: [C: ColumnVersion] = [:]
        versions.reserveCapacity(slots.count)
        for slot in slots { versions[slot.column] = slot.version }
        return versions
    }

    /// The value of one field, or nil when absent or deleted.
    @inlinable public func field(_ column: C) -> V? {
        slot(of: column).flatMap { slots[$0].value }
    }

    /// The version of one column, deleted or not.
    @inlinable public func columnVersion(_ column: C) -> ColumnVersion? {
        slot(of: column).map { slots[$0].version }
    }

    /// Columns ever written (visible or deleted).
    @inlinable public var columnCount: Int { slots.count }

    /// Calls `body` for every column written: name, version, value (nil when deleted).
    @inlinable public func forEachColumn(_ body: (C, ColumnVersion, V?) throws -> Void) rethrows {
        for slot in slots { try body(slot.column, slot.version, slot.value) }
    }

    /// Always inlined: called, the record was copied into the call (its columns' storage
    /// retained and released around it), an atomic operation per write that waits for the
    /// columns' cache line (perf of the engine's one-call writes, session 49).
    @inlinable @inline(__always) func slot(of column: C) -> Int? {
        if let index { return index[column] }
        for position in slots.indices where slots[position].column == column { return position }
        return nil
    }

    /// Sets a column's version and value (nil deletes the field, keeping the version).
    @inlinable mutating func write(_ column: C, version: ColumnVersion, value: V?) {
        write(column, at: slot(of: column), version: version, value: value)
    }

    /// `write(_:version:value:)` to the column at `position`, found by the caller
    /// (`slot(of:)`; nil: the record has no such column, which is appended).
    @inlinable mutating func write(
        _ column: C, at position: Int?, version: ColumnVersion, value: V?
    ) {
        guard let position else { return append(column, version: version, value: value) }
        slots[position].version = version
        slots[position].value = value
        widenBounds(to: version.localDbVersion)
    }

    /// A merge's write: sets the column unless it already has a version `DefaultMergeRule`
    /// keeps over `version`. Finds the column once. Returns whether it wrote.
    @inlinable mutating func writeIfPreferred(
        _ column: C, version: ColumnVersion, value: V?
    ) -> Bool {
        guard let position = slot(of: column) else {
            append(column, version: version, value: value)
            return true
        }
        let local = slots[position].version
        let preferred = DefaultMergeRule().shouldAccept(
            localCol: local.colVersion, localDb: local.dbVersion, localNode: local.nodeId,
            remoteCol: version.colVersion, remoteDb: version.dbVersion, remoteNode: version.nodeId)
        guard preferred else { return false }
        write(column, at: position, version: version, value: value)
        return true
    }

    /// Adds a column the record does not have yet.
    @inlinable mutating func append(_ column: C, version: ColumnVersion, value: V?) {
        slots.append(Slot(column: column, version: version, value: value))
        if index != nil {
            index?[column] = slots.count - 1
        } else if slots.count > Self.indexThreshold {
            index = Dictionary(uniqueKeysWithValues: slots.indices.map { (slots[$0].column, $0) })
        }
        widenBounds(to: version.localDbVersion)
    }

    @inlinable mutating func widenBounds(to localDbVersion: UInt64) {
        lowestLocalDbVersion = min(lowestLocalDbVersion, localDbVersion)
        highestLocalDbVersion = max(highestLocalDbVersion, localDbVersion)
    }

    /// A local write: the column's version goes up by one and takes the local clock's
    /// `dbVersion` (also its local version); nil `value` deletes the field. Returns the new
    /// column version. Saturates at `UInt64.max` rather than trapping on a column whose
    /// version came from outside (`Logbook` refuses such a write before it gets here).
    @inlinable mutating func writeLocally(_ column: C, value: V?, dbVersion: UInt64, nodeId: NodeId)
        -> UInt64
    {
        writeLocally(
            column, at: slot(of: column), value: value, dbVersion: dbVersion, nodeId: nodeId)
    }

    /// `writeLocally(_:value:dbVersion:nodeId:)` to the column at `position`, found by the
    /// caller (`slot(of:)`; nil: the record has no such column): the name is searched once.
    @inlinable mutating func writeLocally(
        _ column: C, at position: Int?, value: V?, dbVersion: UInt64, nodeId: NodeId
    ) -> UInt64 {
        let held = position.map { slots[$0].version.colVersion } ?? 0
        let colVersion = LogicalClock.successor(of: held)
        write(
            column, at: position,
            version: ColumnVersion(
                colVersion: colVersion, dbVersion: dbVersion, nodeId: nodeId,
                localDbVersion: dbVersion),
            value: value)
        return colVersion
    }

    /// Checks the invariants in the type's documentation.
    @usableFromInline func checkInvariants() {
        if let index {
            precondition(
                index.count == slots.count,
                "index has \(index.count) names for \(slots.count) columns")
            for (position, slot) in slots.enumerated() {
                precondition(
                    index[slot.column] == position, "index misplaces column \(slot.column)")
            }
        } else {
            precondition(Set(slots.map(\.column)).count == slots.count, "duplicate column names")
        }
        for slot in slots {
            precondition(
                slot.version.localDbVersion >= lowestLocalDbVersion
                    && slot.version.localDbVersion <= highestLocalDbVersion,
                "column localDbVersion \(slot.version.localDbVersion) outside record bounds "
                    + "\(lowestLocalDbVersion)...\(highestLocalDbVersion)")
        }
    }
}

extension Record: Equatable {
    /// Records are equal when their visible fields are: column versions differ per replica.
    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.fields == rhs.fields
    }
}

extension Record: Codable {
    private enum CodingKeys: String, CodingKey {
        case fields, columnVersions, lowestLocalDbVersion, highestLocalDbVersion
    }

    /// crdt-lite's shape: `fields`, `columnVersions`, and the two version bounds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fields = try container.decode([C: V].self, forKey: .fields)
        let versions = try container.decode([C: ColumnVersion].self, forKey: .columnVersions)
        self.init()
        for (column, version) in versions {
            write(column, version: version, value: fields[column])
        }
        lowestLocalDbVersion = try container.decode(UInt64.self, forKey: .lowestLocalDbVersion)
        highestLocalDbVersion = try container.decode(UInt64.self, forKey: .highestLocalDbVersion)
    }

    /// crdt-lite's shape: `fields`, `columnVersions`, and the two version bounds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields, forKey: .fields)
        try container.encode(columnVersions, forKey: .columnVersions)
        try container.encode(lowestLocalDbVersion, forKey: .lowestLocalDbVersion)
        try container.encode(highestLocalDbVersion, forKey: .highestLocalDbVersion)
    }
}
