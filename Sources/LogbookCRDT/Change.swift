/// One CRDT operation: the unit that is logged, shipped and merged.
///
/// - `colName == nil`: the whole record is deleted (`colVersion` is `UInt64.max`).
/// - `colName != nil, value == nil`: that field is deleted.
/// - otherwise: the field is set to `value`.
///
/// `Codable` in crdt-lite's Swift form (camelCase keys, nil fields omitted); see
/// `ChangeJSON` for the Rust form and byte-stable output.
public struct Change<
    K: Hashable & Codable & Sendable, C: Hashable & Codable & Sendable,
    V: Hashable & Codable & Sendable
>: Hashable, Codable, Sendable {
    /// The record this change belongs to.
    public var recordId: K
    /// The column written, or nil for a record deletion.
    public var colName: C?
    /// The new value, or nil for a deletion.
    public var value: V?
    /// The column's version after this change.
    public var colVersion: UInt64
    /// The origin replica's clock when the change was made.
    public var dbVersion: UInt64
    /// The replica that made the change.
    public var nodeId: NodeId
    /// The holding replica's clock when it created or accepted the change.
    public var localDbVersion: UInt64
    /// Application flags; carried through merges, never interpreted.
    public var flags: UInt32

    /// Creates a change from its parts; `flags` defaults to 0.
    @inlinable public init(
        recordId: K, colName: C?, value: V?, colVersion: UInt64, dbVersion: UInt64,
        nodeId: NodeId, localDbVersion: UInt64, flags: UInt32 = 0
    ) {
        self.recordId = recordId
        self.colName = colName
        self.value = value
        self.colVersion = colVersion
        self.dbVersion = dbVersion
        self.nodeId = nodeId
        self.localDbVersion = localDbVersion
        self.flags = flags
    }

    /// True when this change deletes the whole record.
    public var isRecordDeletion: Bool { colName == nil }

    /// True when this change deletes one field.
    public var isFieldDeletion: Bool { colName != nil && value == nil }
}
