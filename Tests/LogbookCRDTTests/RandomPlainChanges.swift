import LogbookCRDT

/// Seeded random plain changes for the JSON reader and writer tests: every kind of value,
/// strings with quotes, escapes, control characters, non-ASCII text and the `$` tags,
/// versions over the whole UInt64 range, deletions.
enum RandomPlainChanges {
    typealias PlainChange = Change<String, String, Value>

    /// SplitMix64: one seed reproduces a run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    static let texts = [
        "", "lamp", "entity/kitchen-1", "quote \" and \\ and /", "tab\tnew\nline\r", "\u{1}\u{1F}",
        "é ü ß", "日本語", "🙂 emoji 🏳️‍🌈", "\u{7F}", "a/b/c", "$bytes", "$null", "\u{0}",
        "Z", "z", "É", "a", "\u{8}\u{C}\u{B}\u{1B}\u{2028}",
    ]

    static func value(_ random: inout Generator, depth: Int = 0) -> Value {
        switch Int.random(in: 0..<(depth > 2 ? 6 : 9), using: &random) {
        case 0: return .bool(Bool.random(using: &random))
        case 1: return .int(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 2: return .int(Int64.random(in: -1000...1000, using: &random))
        case 3:
            let double = Double.random(in: -1e6...1e6, using: &random)
            return .double(double.rounded() == double ? double + 0.5 : double)
        case 4: return .string(Self.texts.randomElement(using: &random) ?? "")
        case 5:
            return .bytes(
                (0..<Int.random(in: 0..<9, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                })
        case 6:
            return .array(
                (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                    value(&random, depth: depth + 1)
                })
        case 7:
            var object: [String: Value] = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &random) {
                object[Self.texts.randomElement(using: &random) ?? "k"] = value(
                    &random, depth: depth + 1)
            }
            return .object(object)
        default: return .null
        }
    }

    static func change(_ random: inout Generator) -> PlainChange {
        let deletion = Int.random(in: 0..<10, using: &random) == 0
        return PlainChange(
            recordId: Self.texts.randomElement(using: &random) ?? "r",
            colName: deletion ? nil : Self.texts.randomElement(using: &random),
            value: deletion || Bool.random(using: &random) && Bool.random(using: &random)
                ? nil : value(&random),
            colVersion: UInt64.random(in: 0...UInt64.max, using: &random),
            dbVersion: UInt64.random(in: 0...1000, using: &random),
            nodeId: UInt64.random(in: 0...UInt64.max, using: &random),
            localDbVersion: UInt64.random(in: 0...1000, using: &random),
            flags: UInt32.random(in: 0...3, using: &random))
    }
}
