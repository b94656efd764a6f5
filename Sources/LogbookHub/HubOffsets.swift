/// How a hub's versions appear as log offsets to a node's replication session, which keeps
/// one cursor per peer in offsets: the change at index `i` of the rows hub version `V` holds
/// is at offset `V << 16 | i`. Answers never split a version, so a cursor is always the end
/// of one version's rows, `V << 16 | n`, or the start of one, `V << 16`; both name the
/// versions a reader has seen in full. A version holds at most `HubStore.pushChangesMax`
/// rows (50,000 < 2^16), and 48 bits of versions outlast any stream.
public enum HubOffsets {
    /// Bits of an offset that hold the index in a version.
    public static let indexBits: UInt64 = 16
    /// The most rows one version may hold.
    public static let rowsPerVersionMax: UInt64 = 1 << indexBits
    /// Versions above this have no offset.
    public static let versionMax: UInt64 = (1 << (64 - indexBits)) - 1

    /// The highest version every change at or below which a reader at `offset` has seen.
    public static func since(_ offset: UInt64) -> UInt64 {
        let version = offset >> indexBits
        let startsVersion = offset & (rowsPerVersionMax - 1) == 0
        return startsVersion ? (version == 0 ? 0 : version - 1) : version
    }

    /// The offset of the change at `index` in `version`; nil when either is out of range.
    public static func offset(version: UInt64, index: UInt64) -> UInt64? {
        guard version <= versionMax, index < rowsPerVersionMax else { return nil }
        return version << indexBits | index
    }

    /// The offset of a reader that has seen every version up to `version` in full.
    public static func after(version: UInt64) -> UInt64 {
        (min(version, versionMax - 1) + 1) << indexBits
    }
}
