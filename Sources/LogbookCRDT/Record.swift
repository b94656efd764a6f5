/// A live record: its visible fields and the version of every column ever written.
///
/// Invariants: every key of `fields` has a `columnVersions` entry; `lowestLocalDbVersion` and
/// `highestLocalDbVersion` bound every `localDbVersion` written into the record (they start at
/// `UInt64.max` and 0 and only ever widen).
public struct Record<C: Hashable & Codable & Sendable, V: Hashable & Codable & Sendable>:
    Codable, Sendable
{
    /// The visible fields.
    public var fields: [C: V]
    /// The version of every column written, deleted fields included.
    public var columnVersions: [C: ColumnVersion]
    /// The smallest local version written into this record.
    public var lowestLocalDbVersion: UInt64
    /// The largest local version written into this record.
    public var highestLocalDbVersion: UInt64

    /// An empty record.
    @inlinable public init() {
        fields = [:]
        columnVersions = [:]
        lowestLocalDbVersion = .max
        highestLocalDbVersion = 0
    }

    /// Widens the local-version bounds to include `localDbVersion`.
    @inlinable mutating func noteLocalVersion(_ localDbVersion: UInt64) {
        lowestLocalDbVersion = min(lowestLocalDbVersion, localDbVersion)
        highestLocalDbVersion = max(highestLocalDbVersion, localDbVersion)
    }

    /// Checks the invariants in the type's documentation.
    @usableFromInline func checkInvariants() {
        for column in fields.keys {
            precondition(columnVersions[column] != nil, "field \(column) has no column version")
        }
        for version in columnVersions.values {
            precondition(
                version.localDbVersion >= lowestLocalDbVersion
                    && version.localDbVersion <= highestLocalDbVersion,
                "column localDbVersion \(version.localDbVersion) outside record bounds "
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
