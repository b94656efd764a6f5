/// Which records of the sealed offsets `base..<sealedEnd` a rewrite may drop: one bit each.
/// Pass 1 (`LiveSet`) sets the bits; pass 2 reads them, from several threads at once, so this
/// is a plain value.
struct DeadRecords: Sendable {
    let base: UInt64
    let sealedEnd: UInt64
    private var words: [UInt64]

    init(base: UInt64, sealedEnd: UInt64) {
        precondition(base <= sealedEnd, "sealed range \(base)..<\(sealedEnd)")
        self.base = base
        self.sealedEnd = sealedEnd
        words = [UInt64](repeating: 0, count: Int((sealedEnd - base + 63) / 64))
    }

    /// True when the record at `offset` stays (offsets outside the range always do).
    @inline(__always)
    func isLive(_ offset: UInt64) -> Bool {
        guard offset >= base && offset < sealedEnd else { return true }
        let bit = offset - base
        return words[Int(bit / 64)] & (1 << (bit % 64)) == 0
    }

    /// Dead records among `range` (offsets).
    func count(in range: Range<UInt64>) -> Int {
        let lower = max(range.lowerBound, base)
        let upper = min(range.upperBound, sealedEnd)
        guard lower < upper else { return 0 }
        var count = 0
        for offset in lower..<upper where !isLive(offset) {
            count += 1
        }
        return count
    }

    @inline(__always)
    mutating func markDead(_ offset: UInt64) {
        guard offset >= base && offset < sealedEnd else { return }
        let bit = offset - base
        words[Int(bit / 64)] |= 1 << (bit % 64)
    }

    @inline(__always)
    mutating func markLive(_ offset: UInt64) {
        guard offset >= base && offset < sealedEnd else { return }
        let bit = offset - base
        words[Int(bit / 64)] &= ~(1 << (bit % 64))
    }

    /// Adds what `other`, over the same range, marked dead.
    mutating func formUnion(_ other: DeadRecords) {
        precondition(other.base == base && other.sealedEnd == sealedEnd, "same range")
        for index in words.indices { words[index] |= other.words[index] }
    }
}
