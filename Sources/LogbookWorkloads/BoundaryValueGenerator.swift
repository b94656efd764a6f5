import LogbookCRDT

/// Seeded JSON values at every boundary a crdt-lite client can reach, for the value-fidelity
/// property tests: integers around ±2^53, ±2^63 and 2^64 − 1; doubles that are whole,
/// subnormal, ±0, huge and of random bits; strings with escapes, controls, line and
/// paragraph separators, accents, CJK and emoji; bytes; arrays and objects nested to
/// `Value.nestingDepthMax`.
///
/// An object never has `$null` or `$bytes` as a key: those are the tags that carry a null
/// value and bytes through JSON (docs/crdt.md, "JSON"), so an object made of one would read
/// back as what it tags.
public struct BoundaryValueGenerator {
    private var random: SeededGenerator

    /// Creates a generator whose values are fixed by `seed`.
    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// Integers at the edges of the JSON number kinds, in `Value`'s one spelling each.
    public static let boundaryIntegers: [Value] = {
        var values: [Value] = []
        for edge: Int64 in [0, 1 << 53, Int64.max, -(1 << 53)] {
            for step: Int64 in -2...2 {
                let (sum, overflowed) = edge.addingReportingOverflow(step)
                if !overflowed { values.append(.int(sum)) }
            }
        }
        values += [.int(.min), .int(.min + 1)]
        for unsigned: UInt64 in [1 << 63, (1 << 63) + 1, .max - 1, .max] {
            values.append(Value(integer: unsigned))
        }
        return values
    }()

    /// Doubles at the edges: whole ones (which JSONEncoder writes as integers), both zeros,
    /// the smallest subnormal and normal, the largest finite, and whole ones at and over 2^63.
    public static let boundaryDoubles: [Double] = [
        22.0, 1.0, -1.0, 0.0, -0.0, 100.0, 1e20, -1e20, 9.3e18, 0x1p63, 0x1p64, -0x1p63, 0x1p53,
        0x1p53 + 2, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1, 1e-7, 123456789.25, .pi,
    ]

    /// Strings of every class JSON escapes or a terminal or a reader could trip on.
    public static let boundaryStrings: [String] = [
        "", "plain", "quote \" backslash \\ slash /", "\u{0}\u{1}\u{8}\u{C}\n\r\t\u{1F}",
        "\u{7F}\u{80}\u{9F}", "line\u{2028}paragraph\u{2029}", "café é", "日本語",
        "🙂🏳️‍🌈", "\u{FEFF}bom", "$bytes", "$null", "1.0", "-0",
    ]

    /// `randomCount` values from `value()`, then every boundary integer and double, then the
    /// deepest value: what each value-fidelity test writes.
    public mutating func values(randomCount: Int) -> [Value] {
        var values = (0..<randomCount).map { _ in value() }
        values += Self.boundaryIntegers
        values += Self.boundaryDoubles.map(Value.double)
        values.append(deepestValue())
        return values
    }

    /// The next value: a scalar most of the time, else bytes, an array or an object.
    public mutating func value(depth: Int = 0) -> Value {
        let composite = depth < 4 && random.chance(0.3)
        guard composite else { return scalar() }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .bytes((0..<Int.random(in: 0...12, using: &random)).map { _ in byte() })
        case 1:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: Value] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let key = pick(Self.boundaryStrings)
                guard key != Value.nullTag, key != Value.bytesTag else { continue }
                members[key] = value(depth: depth + 1)
            }
            return .object(members)
        }
    }

    /// A value nested exactly `Value.nestingDepthMax` deep, its innermost one a boundary
    /// scalar: the deepest every entry point must take.
    public mutating func deepestValue() -> Value {
        var value = scalar()
        for level in 0..<Value.nestingDepthMax {
            value = level.isMultiple(of: 2) ? .array([value]) : .object(["k": value])
        }
        return value
    }

    /// One scalar: a boundary integer, a boundary or random-bit double, a boundary string, a
    /// boolean or null.
    public mutating func scalar() -> Value {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return pick(Self.boundaryIntegers)
        case 1: return .double(pick(Self.boundaryDoubles))
        case 2: return .double(randomFiniteDouble())
        case 3: return .string(pick(Self.boundaryStrings))
        case 4: return .bool(random.chance(0.5))
        default: return .null
        }
    }

    private mutating func randomFiniteDouble() -> Double {
        while true {
            let double = Double(bitPattern: random.next())
            if double.isFinite { return double }
        }
    }

    private mutating func byte() -> UInt8 { UInt8.random(in: 0...255, using: &random) }

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }
}
