import LogbookCRDT
import LogbookStorage

/// The bounds every change must keep, checked by every write path before anything is merged
/// or logged and by the change-record decoder with the same constants: what a writer
/// accepts, a reader reads. See docs/storage.md#limits and
/// docs/decisions/0003-version-bounds.md.
public enum ChangeLimits {
    /// The largest version Logbook stores or hands out: every clock time, `dbVersion`,
    /// `localDbVersion` and column `colVersion` is at most 2^63 − 1. A record deletion's
    /// `colVersion` is the one exception: crdt-lite marks deletions with `UInt64.max`.
    ///
    /// Why 2^63 − 1: it fits a signed 64-bit integer (PostgreSQL's `bigint`, SQLite, Java and
    /// Kotlin longs), and `max(clock, version) + 1` can never overflow.
    public static let versionMax: UInt64 = UInt64(Int64.max)
    /// The highest `dbVersion` or `colVersion` a replica whose clock is at `clock` admits
    /// from a client: what its clock follows fully (2^62, or 2^32 past the clock), and never
    /// within 2^32 of `versionMax`. A crdt-lite client follows every `dbVersion` it pulls
    /// and writes a column one past its `colVersion`, so whoever pulled a change admitted
    /// here can make 2^32 more versions that are admitted too. Peers' logs are not held to
    /// it (their own doors were), only followed as far
    /// (docs/decisions/0014-a-version-door-relative-to-the-clock.md).
    public static func clientVersionMax(clock: UInt64) -> UInt64 {
        min(LogicalClock.followLimit(from: clock), versionMax - LogicalClock.followLead)
    }
    /// The deepest nesting of arrays and objects in a value: a top-level scalar is at depth
    /// 0, the elements of a top-level array at depth 1.
    public static let valueDepthMax = Value.nestingDepthMax
    /// The longest record id, in UTF-8 bytes. Small enough that a (record, column) key fits a
    /// PostgreSQL B-tree entry (about 2.7 KB) with room to spare.
    public static let recordIdSizeMax = 1024
    /// The longest column name, in UTF-8 bytes.
    public static let columnNameSizeMax = 1024
    /// The largest encoded value, in bytes: what remains of a log record
    /// (`Limits.recordSizeMax`) after the longest id and column name and every header
    /// field, rounded down to a whole KiB, so a change within every limit always fits a
    /// record.
    public static let valueSizeMax = Limits.recordSizeMax - 4 * 1024

    /// The largest change record that the limits allow: kind, four varints, flags, and the
    /// three length-prefixed fields. `ChangeLimitsTests` checks it is within a log record.
    static let changeRecordSizeMax =
        1 + 4 * Varint.sizeMax + 5 + (Varint.sizeMax + recordIdSizeMax)
        + (Varint.sizeMax + columnNameSizeMax) + valueSizeMax
}
