/// The two JSON spellings of a crdt-lite `Change`.
///
/// - `swift`: camelCase keys; nil `colName`/`value` omitted (crdt-lite's Swift `Codable`).
/// - `rust`: snake_case keys; nil written as an explicit `null` (crdt-lite's serde form).
///
/// Both write `UInt64.max` as the integer 18446744073709551615.
///
/// One rule for every exit (docs/shipping.md#which-form): the Rust form unless the Swift form
/// is asked for — `ChangeJSON`'s encoders, `GET /changes` on a node and a hub, `logbook
/// export`. Every reader takes either form, telling them apart by the keys.
public enum ChangeJSONFormat: String, Sendable, CaseIterable {
    /// crdt-lite's Swift form.
    case swift
    /// crdt-lite's Rust form.
    case rust

    /// The form written when none is asked for: crdt-lite's serde form, the one most
    /// clients speak.
    public static let standard = ChangeJSONFormat.rust
}

/// The eight fields of a change and their key in each format. The raw value is the field's
/// place in `ChangeFields.seen` and in the fast reader's key table.
enum ChangeField: UInt8, CaseIterable {
    case recordId, colName, value, colVersion, dbVersion, nodeId, localDbVersion, flags

    /// "value" and "flags" are spelled alike in both forms, so they do not tell the form.
    var isSpelledAlike: Bool { self == .value || self == .flags }

    func key(in format: ChangeJSONFormat) -> ChangeCodingKey {
        switch format {
        case .swift: ChangeCodingKey(swiftName.description)
        case .rust: ChangeCodingKey(rustName.description)
        }
    }

    var swiftName: StaticString {
        switch self {
        case .recordId: "recordId"
        case .colName: "colName"
        case .value: "value"
        case .colVersion: "colVersion"
        case .dbVersion: "dbVersion"
        case .nodeId: "nodeId"
        case .localDbVersion: "localDbVersion"
        case .flags: "flags"
        }
    }

    var rustName: StaticString {
        switch self {
        case .recordId: "record_id"
        case .colName: "col_name"
        case .value: "value"
        case .colVersion: "col_version"
        case .dbVersion: "db_version"
        case .nodeId: "node_id"
        case .localDbVersion: "local_db_version"
        case .flags: "flags"
        }
    }
}

/// A coding key spelled at run time, so one decoder reads both formats.
struct ChangeCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
