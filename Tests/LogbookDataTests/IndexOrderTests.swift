import Foundation
import LogbookCRDT
import LogbookWorkloads
import Testing

@testable import LogbookData

// The index's byte order is the values' order: seeded pairs of integers (both kinds),
// doubles (negative, zero of both signs, infinite), strings (with NUL and non-ASCII, by UTF-8)
// and compound keys compare as their encodings do; a string prefix is a byte range. The
// chunked sorted list holds what a sorted array holds after seeded insertions and removals
// across many chunk splits.
@Suite struct IndexOrderTests {
    static func sign(_ order: Int) -> Int { order < 0 ? -1 : (order > 0 ? 1 : 0) }

    static func encoded(_ values: [Value?], _ recordId: String = "r") -> [UInt8] {
        IndexKeyEncoding.key(values, recordId: recordId)
    }

    static func natural<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    @Test func scalarsSortAsTheirValues() {
        var random = SeededGenerator(seed: 7)
        let doubles: [Double] = [-.infinity, -1e300, -2.5, -0.0, 0.0, 1e-300, 3, .infinity]
        for _ in 0..<5_000 {
            let (a, b) = (
                Int64.random(in: .min ... .max, using: &random),
                Int64.random(in: -3...3, using: &random)
            )
            #expect(
                Self.sign(
                    IndexKeyEncoding.compare(Self.encoded([.int(a)]), Self.encoded([.int(b)])))
                    == Self.natural(a, b))
            let (u, v) = (
                UInt64.random(in: 0 ... .max, using: &random),
                UInt64.random(in: 0...5, using: &random) << 62
            )
            #expect(
                Self.sign(
                    IndexKeyEncoding.compare(
                        Self.encoded([.unsigned(u)]), Self.encoded([.unsigned(v)])))
                    == Self.natural(u, v))
            let x = doubles.randomElement(using: &random) ?? 0
            let y = Double.random(in: -10...10, using: &random)
            #expect(
                Self.sign(
                    IndexKeyEncoding.compare(Self.encoded([.double(x)]), Self.encoded([.double(y)]))
                ) == Self.natural(x, y))
        }
        // The same number as .int and as .unsigned is one key; -0 sorts just before +0.
        #expect(Self.encoded([.int(5)]) == Self.encoded([.unsigned(5)]))
        #expect(
            IndexKeyEncoding.compare(Self.encoded([.double(-0.0)]), Self.encoded([.double(0.0)]))
                < 0)
        let kinds: [Value?] = [
            nil, .null, .bool(false), .bool(true), .int(.max), .unsigned(.max), .double(-1),
            .string(""), .bytes([]), .array([]),
        ]
        for (left, right) in zip(kinds, kinds.dropFirst()) {
            #expect(
                IndexKeyEncoding.compare(Self.encoded([left]), Self.encoded([right])) < 0,
                "\(String(describing: left)) before \(String(describing: right))")
        }
    }

    @Test func stringsSortByUTF8AndPrefixesAreRanges() {
        var random = SeededGenerator(seed: 8)
        let alphabet: [Character] = ["a", "b", "\u{0}", "é", "z", "\u{1F600}", "A"]
        func word() -> String {
            String(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    alphabet.randomElement(using: &random) ?? "a"
                })
        }
        for _ in 0..<5_000 {
            let (a, b) = (word(), word())
            let expected =
                Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
                ? -1 : (Array(a.utf8) == Array(b.utf8) ? 0 : 1)
            #expect(
                Self.sign(
                    IndexKeyEncoding.compare(Self.encoded([.string(a)]), Self.encoded([.string(b)]))
                ) == expected, "\(a.debugDescription) vs \(b.debugDescription)")
            // Compound: the first column decides, then the second.
            let (c, d) = (
                Int64.random(in: 0...2, using: &random), Int64.random(in: 0...2, using: &random)
            )
            let compound = Self.sign(
                IndexKeyEncoding.compare(
                    Self.encoded([.string(a), .int(c)]), Self.encoded([.string(b), .int(d)])))
            #expect(compound == (expected != 0 ? expected : Self.natural(c, d)))
            // A prefix query's range holds exactly the strings that begin with the prefix.
            let query = IndexQuery.prefix(b)
            let (low, high) = query.keyRange()
            let key = Self.encoded([.string(a)], "id")
            let inRange =
                IndexKeyEncoding.compare(key, low) >= 0 && IndexKeyEncoding.compare(key, high) < 0
            #expect(
                inRange == Array(a.utf8).starts(with: Array(b.utf8)),
                "\(a.debugDescription) begins with \(b.debugDescription)")
        }
    }

    @Test func chunkedSortedKeysHoldWhatASortedArrayHolds() {
        var random = SeededGenerator(seed: 9)
        var keys = SortedKeys()
        var reference = Set<[UInt8]>()
        for step in 0..<30_000 {
            let key = Self.encoded([.int(Int64.random(in: 0..<6_000, using: &random))])
            if step % 3 == 2 {
                #expect(keys.remove(key) == (reference.remove(key) != nil))
            } else {
                #expect(
                    keys.insert(IndexEntry(key: key, recordId: "r"))
                        == reference.insert(key).inserted)
            }
        }
        let sorted = reference.sorted { IndexKeyEncoding.compare($0, $1) < 0 }
        #expect(keys.count == sorted.count && keys.chunks.count > 4, "\(keys.chunks.count) chunks")
        #expect(keys.chunks.flatMap { $0.map(\.key) } == sorted)
        #expect(keys.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedKeys.chunkSizeMax })
        // Walking back from the end visits every key in reverse.
        var backwards: [[UInt8]] = []
        var position = keys.position(before: keys.end)
        while let current = position {
            backwards.append(keys.entry(at: current).key)
            position = keys.position(before: current)
        }
        #expect(backwards == sorted.reversed())
    }
}
