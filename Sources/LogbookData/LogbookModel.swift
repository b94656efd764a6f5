import LogbookCRDT
import Synchronization

/// A type an app stores in a Logbook as records: each stored property is a column, so two
/// devices editing different properties of one model both keep their edits (crdt-lite's
/// column-level last-writer-wins).
///
/// Conform a `Codable` struct and give it an `id`:
///
/// ```swift
/// struct Message: LogbookModel {
///     var id: UUID
///     var conversation: String
///     var text: String
///     var sentAt: Date
///     var editedAt: Date?        // nil: no column
///     var toolCalls: [ToolCall]  // nested values are one column, a JSON-shaped `Value`
/// }
/// ```
///
/// The record id is `recordPrefix` followed by the id (`message/6F9619FF-…`); the id is
/// also stored as the column `id`, as every other property. An id derived from other
/// properties is a computed `id` (`var id: String { "\(home)/\(name)" }`).
public protocol LogbookModel: Codable, Identifiable, Sendable where ID: ModelID {
    /// What every record id of this type starts with, so that types never share an id and
    /// a scan of one type reads no other. The default is the type's name, lowercased, and
    /// a slash: `message/`. Changing it orphans the records already written.
    static var recordPrefix: String { get }

    /// Columns an earlier version of the model stored under another name: a property's
    /// column → its earlier names, newest first. A record that lacks the column is read from
    /// the first earlier one it holds; a save writes the current name and keeps the earlier
    /// column (an older version of the app on another device still reads it). Empty by
    /// default.
    static var renamedColumns: [String: [String]] { get }

    /// The value a record that lacks a column reads for it (after `renamedColumns`): a
    /// property added in a later version, so that older records still decode. Empty by
    /// default; a property that is neither optional nor here must be in every record.
    static var columnDefaults: [String: Value] { get }

    /// The version of the model's shape: the newest `ModelMigration` it has. Records saved
    /// new are stamped with it (the column `ModelMigration.versionColumn`) so that no
    /// migration runs on them; 0, the default, stamps nothing.
    static var schemaVersion: Int { get }
}

extension LogbookModel {
    /// The type's name, lowercased, and a slash.
    public static var recordPrefix: String { DefaultRecordPrefixes.prefix(of: Self.self) }

    /// No renamed columns.
    public static var renamedColumns: [String: [String]] { [:] }

    /// No defaults.
    public static var columnDefaults: [String: Value] { [:] }

    /// 0: the model has no migrations, and its records carry no version.
    public static var schemaVersion: Int { 0 }

    /// The id of this model's record.
    public var recordId: String { Self.recordId(for: id) }

    /// The record id of the model of this type with `id`.
    public static func recordId(for id: ID) -> String { recordPrefix + id.recordKey }
}

/// An identifier that spells itself in a record id and reads itself back from it.
public protocol ModelID: Hashable, Sendable {
    /// The id as the part of a record id after the model's prefix.
    var recordKey: String { get }
    /// The id a record id's key spells; nil when it spells none.
    init?(recordKey: String)
}

extension String: ModelID {
    /// The string itself.
    public var recordKey: String { self }
    /// The id `recordKey` spells; nil when it spells none.
    public init?(recordKey: String) { self = recordKey }
}

extension Int: ModelID {
    /// The decimal spelling.
    public var recordKey: String { String(self) }
    /// The id `recordKey` spells; nil when it spells none.
    public init?(recordKey: String) { self.init(recordKey) }
}

extension Int64: ModelID {
    /// The decimal spelling.
    public var recordKey: String { String(self) }
    /// The id `recordKey` spells; nil when it spells none.
    public init?(recordKey: String) { self.init(recordKey) }
}

extension UInt64: ModelID {
    /// The decimal spelling.
    public var recordKey: String { String(self) }
    /// The id `recordKey` spells; nil when it spells none.
    public init?(recordKey: String) { self.init(recordKey) }
}

/// The default record prefixes, made once per type: spelling a type's name costs a
/// microsecond, and every save, read and index change asks for its prefix.
enum DefaultRecordPrefixes {
    private static let made = Mutex<[ObjectIdentifier: String]>([:])

    static func prefix(of type: Any.Type) -> String {
        if let prefix = made.withLock({ $0[ObjectIdentifier(type)] }) { return prefix }
        let prefix = String(describing: type).lowercased() + "/"
        made.withLock { $0[ObjectIdentifier(type)] = prefix }
        return prefix
    }
}
