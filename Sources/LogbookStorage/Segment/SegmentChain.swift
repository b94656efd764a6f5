/// Where each segment's chain of batch CRCs starts.
///
/// Every batch names the CRC of the batch before it in its segment; the first batch names a
/// seed. A seed of 0 said nothing about the log, so a segment copied from another log's
/// directory — the active one above all, which the manifest knows only by its base offset —
/// read as this log's. Segments from `seededFrom` on start from a seed drawn from the log's
/// identity and the segment's base offset: another log's segment, or one renamed to another
/// base, breaks the chain at its first batch and is refused by name.
///
/// The seed is a CRC, not a MAC: it catches files put in the wrong place, not a forger who
/// recomputes checksums. Segments written before seeding (below `seededFrom`) keep 0. A log
/// that lost both its manifest and its identity cannot check the seeds of the segments it
/// has: those (below `checkedFrom`) are read without a check of their first batch's link.
public struct SegmentChain: Hashable, Sendable {
    /// The log whose segments these are.
    public var identity: LogIdentity
    /// Segments with this base offset or a higher one chain from their seed; lower ones
    /// from 0. 0 for a log created seeded.
    public var seededFrom: UInt64
    /// Segments below this base offset are read without checking what their first batch
    /// chains from (at most `seededFrom`; 0 unless the log lost its manifest and identity).
    public var checkedFrom: UInt64

    /// A chain for `identity`'s segments from `seededFrom` on.
    public init(identity: LogIdentity, seededFrom: UInt64, checkedFrom: UInt64 = 0) {
        self.identity = identity
        self.seededFrom = seededFrom
        self.checkedFrom = min(checkedFrom, seededFrom)
    }

    /// The CRC the first batch of the segment at `baseOffset` must name as its previous
    /// one; nil when it is not checked (below `checkedFrom`).
    public func expectedFirstPreviousCRC(ofSegmentAt baseOffset: UInt64) -> UInt32? {
        baseOffset < checkedFrom ? nil : firstPreviousCRC(ofSegmentAt: baseOffset)
    }

    /// The CRC the first batch of a segment written at `baseOffset` names as its previous
    /// one: its seed, or 0 below `seededFrom`.
    public func firstPreviousCRC(ofSegmentAt baseOffset: UInt64) -> UInt32 {
        baseOffset >= seededFrom ? Self.seed(identity: identity, baseOffset: baseOffset) : 0
    }

    /// CRC32C of "LGBKSEED", the identity (high, low) and the base offset, little-endian.
    static func seed(identity: LogIdentity, baseOffset: UInt64) -> UInt32 {
        var bytes = Array("LGBKSEED".utf8)
        bytes.appendLittleEndian(identity.high)
        bytes.appendLittleEndian(identity.low)
        bytes.appendLittleEndian(baseOffset)
        return CRC32C.checksum(bytes)
    }

    /// The chain of a log whose manifest does not say where seeding starts (written before
    /// it, or removed): the longest run of last segments that are empty or chain from their
    /// seed is seeded, the rest not. `firstPreviousCRC(base)` reads a segment's first
    /// batch's previous CRC (nil for an empty segment or an unreadable header, which the
    /// segment's own checks then report). With `identityIsKnown` false (a new identity for
    /// a log that lost its own), the segments present are not checked and later ones are
    /// seeded.
    static func inferred(
        identity: LogIdentity, identityIsKnown: Bool, baseOffsets: [UInt64],
        firstPreviousCRC: (UInt64) throws(StorageError) -> UInt32?
    ) throws(StorageError) -> SegmentChain {
        guard let last = baseOffsets.last else {
            return SegmentChain(identity: identity, seededFrom: 0)
        }
        var seededFrom = last == .max ? last : last + 1
        guard identityIsKnown else {
            return SegmentChain(identity: identity, seededFrom: seededFrom, checkedFrom: seededFrom)
        }
        for base in baseOffsets.reversed() {
            if let previous = try firstPreviousCRC(base),
                previous != seed(identity: identity, baseOffset: base)
            {
                break
            }
            seededFrom = base
        }
        return SegmentChain(identity: identity, seededFrom: seededFrom)
    }
}
