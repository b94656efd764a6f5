/// A local write refused before it changed anything, the clock included: a column it writes
/// already has a version at or above the limit the caller gave, so no higher one is left
/// to give it.
public struct ColumnVersionAtLimit: Error, Sendable, Equatable {
    /// The column whose version is at the limit.
    public let column: String
    /// Its version.
    public let colVersion: UInt64

    /// The refusal of a write to `column`, whose version is `colVersion`.
    public init(column: String, colVersion: UInt64) {
        self.column = column
        self.colVersion = colVersion
    }
}
