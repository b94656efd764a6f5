import LogbookCRDT

/// A stable 128-bit hash of a replica's visible state and versions, for comparing replicas
/// and a live replica with its replay.
///
/// The wrapping sum, per 64-bit half, of the `EntryHash` of one chunk per fact: each live
/// record's id; each column of a live record (deleted fields included) with its value,
/// colVersion, dbVersion and origin node; each tombstoned id. Being a sum, it needs no sort,
/// and the engine's `ReplicaState` keeps it up to date as records change, so a digest costs
/// only the records changed since the last one. It leaves out what legitimately differs
/// between converged replicas: local versions, the clock, and tombstone versions (the first
/// deletion a replica accepted; see docs/crdt.md). Replica snapshot format 1 recorded an
/// earlier, sorted definition (docs/format/replica-snapshot.md).
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

    /// The digest of the engine's state: O(records changed since its last digest).
    public init(of replica: ReplicaState) {
        var terms = StateDigestTerms()
        self.init(replica.digestSum(&terms))
    }

    /// The digest of a replica's state (a `CRDT` or the engine's `ReplicaState`); O(state)
    /// for anything but a `ReplicaState`.
    public init(of replica: some ReplicaContents) {
        if let state = replica as? ReplicaState {
            self.init(of: state)
            return
        }
        var terms = StateDigestTerms()
        var sum = DigestSum.zero
        replica.forEachRecord { sum = sum + terms.live($0, $1) }
        replica.forEachTombstone { recordId, _ in sum = sum + terms.tombstoned(recordId) }
        self.init(sum)
    }

    private init(_ sum: DigestSum) {
        self.init(high: sum.high, low: sum.low)
    }
}

/// The chunks a `StateDigest` sums, each hashed with `EntryHash`.
struct StateDigestTerms: EntryDigesting {
    private var scratch: [UInt8] = []

    mutating func live(_ recordId: String, _ record: Record<String, Value>) -> DigestSum {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(0x52)  // 'R'
        ValueCodec.appendString(recordId, to: &scratch)
        var sum = hashed()
        record.forEachColumn { column, version, field in
            scratch.removeAll(keepingCapacity: true)
            scratch.append(0x43)  // 'C'
            ValueCodec.appendString(recordId, to: &scratch)
            ValueCodec.appendString(column, to: &scratch)
            appendWord(version.colVersion)
            appendWord(version.dbVersion)
            appendWord(version.nodeId)
            if let value = field {
                scratch.append(1)
                ValueCodec.append(value, to: &scratch)
            } else {
                scratch.append(0)
            }
            sum = sum + hashed()
        }
        return sum
    }

    mutating func tombstoned(_ recordId: String) -> DigestSum {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(0x54)  // 'T'
        ValueCodec.appendString(recordId, to: &scratch)
        return hashed()
    }

    private mutating func appendWord(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { scratch.append(contentsOf: $0) }
    }

    private func hashed() -> DigestSum { EntryHash.term(scratch) }
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
