/// A 128-bit sum of per-entry hashes: wrapping addition per 64-bit half, so the order in
/// which entries are added does not matter and one can be taken out again.
package struct DigestSum: Hashable, Sendable {
    package var high: UInt64
    package var low: UInt64

    package static let zero = DigestSum(high: 0, low: 0)

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    package static func + (lhs: DigestSum, rhs: DigestSum) -> DigestSum {
        DigestSum(high: lhs.high &+ rhs.high, low: lhs.low &+ rhs.low)
    }

    package static func - (lhs: DigestSum, rhs: DigestSum) -> DigestSum {
        DigestSum(high: lhs.high &- rhs.high, low: lhs.low &- rhs.low)
    }
}
