import LogbookCRDT
import LogbookStorage

/// A replica snapshot on disk: `snapshot-<offset>.replica` beside the segments; see
/// docs/format/replica-snapshot.md.
///
/// A 128-byte header (little-endian): magic `LBRS`, format 3 (UInt32; 1 and 2 are read
/// too, with a 96-byte header), node id, the log offset the state covers (every record
/// below it is in it), the id of the log epoch holding offset − 1 (ties the snapshot to this
/// log: a log restored from an older copy and written on has a different epoch there), the
/// clock, the `StateDigest`, the entries' check (an order-independent hash sum,
/// `StateDigest.add(hashing:)`), the entry count, the body length, the log's identity and
/// history id (format 3: a snapshot of another log, or of the state before a tombstone GC,
/// is set aside), the nonce of the snapshot mark logged right before its offset (format 3: a
/// snapshot of a diverged copy of this log finds another record there), the last batch's CRC and the header's CRC32C. Then the body: the entries as
/// change records in log batches (LZ4, CRC32C, chained from 0), numbered from 0.
struct ReplicaSnapshotFile: Sendable {
    static let magic: [UInt8] = Array("LBRS".utf8)
    static let formatVersion: UInt32 = 3
    /// Format 1 differs from 2 only in its `digest` field, an earlier definition of
    /// `StateDigest`; the decoder recomputes that field for it. Neither names its log, so
    /// neither is loaded at open (`SnapshotLoader`): they decode for `inspect` and the tests.
    static let oldestReadableVersion: UInt32 = 1
    /// The first format whose `digest` field is today's `StateDigest`.
    static let firstVersionWithCurrentDigest: UInt32 = 2
    /// The first format that names its log's identity and history.
    static let firstVersionNamingItsLog: UInt32 = 3
    /// The header of format 3.
    static let headerSize = 128
    /// The header of formats 1 and 2.
    static let headerSizeBeforeVersion3 = 96
    static let suffix = ".replica"

    var nodeId: NodeId
    var offset: UInt64
    var epochId: UInt64
    var clock: UInt64
    var digest: StateDigest
    var check: StateDigest
    var entryCount: UInt64
    var bodyLength: UInt64 = 0
    /// The log the snapshot was taken of (nil before format 3).
    var identity: LogIdentity? = nil
    /// The log's history when it was taken (`LogHistory.id`; 0 before format 3).
    var historyId: UInt64 = 0
    /// The nonce of the `ChangeRecord.snapshotMark` at offset − 1 (0 at offset 0, and
    /// before format 3).
    var markNonce: UInt64 = 0
    var lastBatchCRC: UInt32 = 0
    /// The format the file was written in (`formatVersion` for a new one).
    var version = formatVersion

    /// The size of this header in its format.
    var encodedHeaderSize: Int {
        version >= Self.firstVersionNamingItsLog ? Self.headerSize : Self.headerSizeBeforeVersion3
    }

    /// The file name for a snapshot covering `offset`: zero-padded so names sort by offset.
    static func fileName(offset: UInt64) -> String {
        let digits = String(offset)
        return "snapshot-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
            + suffix
    }

    /// The offset a snapshot file name stands for, or nil for any other name.
    static func offset(ofFileName name: String) -> UInt64? {
        guard name.hasPrefix("snapshot-"), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst("snapshot-".count).dropLast(suffix.count)
        guard digits.count == 20, digits.allSatisfy(\.isASCII) else { return nil }
        return UInt64(digits)
    }

    /// Why a body of `byteCount` bytes does not belong to this header, or nil when its
    /// length is the one the header gives. The loader asks before reading the body (from
    /// the file's size), the codec again over the bytes it was given.
    func bodyLengthRejection(byteCount: UInt64) -> CheckpointRejection? {
        byteCount == bodyLength
            ? nil : CheckpointRejection("body of \(byteCount) bytes, header says \(bodyLength)")
    }

    /// The header's bytes, its CRC last.
    func encodedHeader() -> [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize)
        bytes.appendLittleEndian(Self.formatVersion)
        for number in [
            nodeId, offset, epochId, clock, digest.high, digest.low, check.high, check.low,
            entryCount, bodyLength, identity?.high ?? 0, identity?.low ?? 0, historyId, markNonce,
        ] {
            bytes.appendLittleEndian(number)
        }
        bytes.appendLittleEndian(lastBatchCRC)
        bytes.appendLittleEndian(bytes.withUnsafeBytes { CRC32C.checksum($0) })
        return bytes
    }

    /// Parses a header, or says why the bytes are not one.
    static func decodeHeader(_ bytes: UnsafeRawBufferPointer) -> Result<Self, CheckpointRejection> {
        guard bytes.count >= 8, Array(bytes[0..<4]) == magic else {
            return .failure(.init("not a replica snapshot (bad magic or short header)"))
        }
        var reader = LittleEndianReader(bytes, from: 4)
        let version = reader.take(UInt32.self)
        guard (oldestReadableVersion...formatVersion).contains(version) else {
            return .failure(
                .init(
                    "snapshot format \(version), expected \(oldestReadableVersion) to \(formatVersion)"
                ))
        }
        let namesItsLog = version >= firstVersionNamingItsLog
        let size = namesItsLog ? headerSize : headerSizeBeforeVersion3
        guard bytes.count >= size else { return .failure(.init("short header")) }
        var numbers: [UInt64] = []
        for _ in 0..<(namesItsLog ? 14 : 10) { numbers.append(reader.take(UInt64.self)) }
        let lastBatchCRC = reader.take(UInt32.self)
        let headerCRC = reader.take(UInt32.self)
        guard
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<(size - 4)])) == headerCRC
        else { return .failure(.init("header checksum mismatch")) }
        return .success(
            ReplicaSnapshotFile(
                nodeId: numbers[0], offset: numbers[1], epochId: numbers[2], clock: numbers[3],
                digest: StateDigest(high: numbers[4], low: numbers[5]),
                check: StateDigest(high: numbers[6], low: numbers[7]), entryCount: numbers[8],
                bodyLength: numbers[9],
                identity: namesItsLog ? LogIdentity(high: numbers[10], low: numbers[11]) : nil,
                historyId: namesItsLog ? numbers[12] : 0, markNonce: namesItsLog ? numbers[13] : 0,
                lastBatchCRC: lastBatchCRC,
                version: version))
    }
}
