import LogbookCRDT

/// A stable 128-bit hash of a replica's visible state and versions, for comparing replicas
/// and a live replica with its replay.
///
/// Covers, in sorted order: every live record's columns (deleted fields included) with
/// value, colVersion, dbVersion and origin node; and the set of tombstoned ids. It leaves out
/// what legitimately differs between converged replicas: local versions, the clock, and
/// tombstone versions (the first deletion a replica accepted; see docs/crdt.md).
public struct StateDigest: Hashable, Sendable, CustomStringConvertible {
    /// The two 64-bit halves.
    public var high: UInt64
    /// The two 64-bit halves.
    public var low: UInt64

    /// 32 hex digits.
    public var description: String {
        let digits = String(high, radix: 16) + ":" + String(low, radix: 16)
        return digits.split(separator: ":").map {
            String(repeating: "0", count: 16 - $0.count) + $0
        }.joined()
    }

    /// The two halves as they are.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The digest of a replica's state (a `CRDT` or the engine's `ReplicaState`).
    public init(of replica: some ReplicaContents) {
        var hasher = StableHasher()
        var scratch: [UInt8] = []
        var records: [(id: String, record: Record<String, Value>)] = []
        replica.forEachRecord { records.append(($0, $1)) }
        records.sort { $0.id < $1.id }
        for (recordId, record) in records {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(0x52)  // 'R'
            ValueCodec.appendString(recordId, to: &scratch)
            var columns: [(String, ColumnVersion, Value?)] = []
            record.forEachColumn { columns.append(($0, $1, $2)) }
            for (column, version, field) in columns.sorted(by: { $0.0 < $1.0 }) {
                ValueCodec.appendString(column, to: &scratch)
                for number in [version.colVersion, version.dbVersion, version.nodeId] {
                    withUnsafeBytes(of: number.littleEndian) { scratch.append(contentsOf: $0) }
                }
                if let value = field {
                    scratch.append(1)
                    ValueCodec.append(value, to: &scratch)
                } else {
                    scratch.append(0)
                }
            }
            hasher.combine(scratch)
        }
        var tombstoned: [String] = []
        replica.forEachTombstone { recordId, _ in tombstoned.append(recordId) }
        for recordId in tombstoned.sorted() {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(0x54)  // 'T'
            ValueCodec.appendString(recordId, to: &scratch)
            hasher.combine(scratch)
        }
        (high, low) = hasher.finalize()
    }
}

/// Two independent 64-bit FNV-1a lanes over length-framed chunks. Not cryptographic: it
/// detects accidental differences, it does not resist an adversary.
struct StableHasher: Sendable {
    private var first: UInt64 = 0xCBF2_9CE4_8422_2325
    private var second: UInt64 = 0x6C62_272E_07BB_0142

    mutating func combine(_ bytes: [UInt8]) {
        var length = UInt64(bytes.count).littleEndian
        withUnsafeBytes(of: &length) { mix($0) }
        bytes.withUnsafeBytes { mix($0) }
    }

    private mutating func mix(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37_79B9
        }
    }

    func finalize() -> (UInt64, UInt64) {
        (first, second)
    }
}

/// Builds a `StateDigest` from length-framed chunks, for views that digest their own state:
/// feed the chunks in a canonical order (the same state must give the same chunks).
public struct StateDigestBuilder: Sendable {
    private var hasher = StableHasher()

    /// An empty builder.
    public init() {}

    /// Adds one chunk; chunk boundaries count (["ab"] and ["a", "b"] differ).
    public mutating func combine(_ bytes: [UInt8]) { hasher.combine(bytes) }

    /// Adds one string as a chunk.
    public mutating func combine(_ string: String) { hasher.combine(Array(string.utf8)) }

    /// The digest of everything combined so far.
    public func finalize() -> StateDigest {
        let (high, low) = hasher.finalize()
        return StateDigest(high: high, low: low)
    }
}
