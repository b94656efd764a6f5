/// A text's characters counted into 64 buckets, for a fast upper bound on how many
/// characters two texts have in common (difflib's quick_ratio numerator): the sum over
/// buckets of the smaller count. Each letter and digit has its own bucket; other characters
/// share buckets, which only loosens the bound (for a bucket holding several characters,
/// the sum of the per-character minimums is at most the minimum of the sums).
///
/// Counts saturate at 255. A saturated count is still an upper bound on the other side's
/// count as long as that side holds at most 255 characters, so `commonBound` is exact as a
/// bound when one of the two texts is at most 255 characters long; callers check.
struct CharacterHistogram {
    private(set) var counts = SIMD64<UInt8>()

    init() {}

    init(_ scalars: [UInt32]) {
        for scalar in scalars {
            let bucket = Self.bucket(scalar)
            if counts[bucket] < .max { counts[bucket] += 1 }
        }
    }

    /// 'a'–'z' → 0–25, '0'–'9' → 26–35, space → 36, other ASCII → 37–52, the rest → 53–63.
    static func bucket(_ scalar: UInt32) -> Int {
        switch scalar {
        case 0x61...0x7A: return Int(scalar - 0x61)
        case 0x30...0x39: return 26 + Int(scalar - 0x30)
        case 0x20: return 36
        case 0..<0x80: return 37 + Int(scalar % 16)
        default: return 53 + Int(scalar % 11)
        }
    }

    /// At least the number of characters the two texts have in common, counted as a
    /// multiset. Valid when one text is at most 255 characters long (see the type).
    func commonBound(with other: CharacterHistogram) -> Int {
        // Each minimum is at most the shorter text's count in that bucket, so the sum of
        // all of them is at most that text's length: no UInt8 lane sum can wrap past 255.
        // A plain byte loop: the generic SIMD operators are not specialized here and cost
        // far more than the loop, which the compiler vectorizes.
        withUnsafeBytes(of: counts) { mine in
            withUnsafeBytes(of: other.counts) { theirs in
                var sum = 0
                for index in 0..<64 { sum &+= Int(min(mine[index], theirs[index])) }
                return sum
            }
        }
    }
}
