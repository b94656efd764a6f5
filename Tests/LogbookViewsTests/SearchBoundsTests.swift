import LogbookTesting
import Testing

@testable import LogbookViews

// The pieces search's early termination rests on. Each must be a true upper bound (or an
// exact answer), else search silently drops a result; `SearchIndexTests` checks whole
// answers, these check each piece over inputs built to reach its edges.
@Suite struct SearchBoundsTests {
    /// Random texts over an alphabet with letters, digits, space, punctuation and non-ASCII
    /// (so several characters share a histogram bucket).
    static func text(_ random: inout SeededGenerator, length: Int) -> [UInt32] {
        let alphabet: [UInt32] =
            Array("aabeknst 0119-_.éüΩ😀".unicodeScalars.map(\.value)) + [
                0x5A, 0x7F, 0x4E2D,
            ]
        return (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0x61 }
    }

    @Test func theHistogramBoundIsNeverBelowTheExactCommonCount() {
        var random = SeededGenerator(seed: 21)
        for round in 0..<3000 {
            let query = Self.text(&random, length: Int.random(in: 0...30, using: &random))
            // Past 255 characters on one side only (the bound's stated limit), sometimes.
            let nameLength = round % 50 == 0 ? 300 : Int.random(in: 0...40, using: &random)
            let name = Self.text(&random, length: nameLength)
            var budget = CharacterBudget(query)
            let exact = budget.common(with: name)
            let bound = CharacterHistogram(name).commonBound(with: CharacterHistogram(query))
            #expect(bound >= exact, "round \(round)")
            #expect(bound <= min(name.count, query.count), "round \(round)")
        }
    }

    @Test func theHistogramBoundIsExactForLettersAndDigits() {
        var random = SeededGenerator(seed: 22)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars.map(\.value))
        for _ in 0..<500 {
            let query = (0..<Int.random(in: 0...25, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? 0x61
            }
            let name = (0..<Int.random(in: 0...25, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? 0x61
            }
            var budget = CharacterBudget(query)
            #expect(
                CharacterHistogram(name).commonBound(with: CharacterHistogram(query))
                    == budget.common(with: name))
        }
    }

    @Test func leadersAreTheBestBoundsWithTheEarliestSlotsAmongEquals() {
        var random = SeededGenerator(seed: 23)
        for _ in 0..<200 {
            let capacity = Int.random(in: 1...20, using: &random)
            let offers = (0..<Int.random(in: 0...200, using: &random)).map { slot in
                (Int32(slot), Double(Int.random(in: 0...12, using: &random)) / 2)
            }
            var leaders = LeadingCandidates(capacity: capacity)
            for (slot, bound) in offers { leaders.offer(slot, bound: bound) }
            let expected = offers.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
                .prefix(capacity).map(\.0)
            #expect(leaders.slots.sorted() == expected.sorted())
        }
    }

    @Test func gallopingIntersectionEqualsTheMerge() {
        var random = SeededGenerator(seed: 24)
        for _ in 0..<500 {
            func list(_ count: Int, below range: Int32) -> [Int32] {
                Array(
                    Set((0..<count).map { _ in Int32.random(in: 0..<range, using: &random) })
                ).sorted()
            }
            let long = list(Int.random(in: 0...3000, using: &random), below: 5000)
            let short = list(Int.random(in: 0...40, using: &random), below: 5200)
            let expected = Set(long).intersection(short).sorted()
            #expect(SortedSlots.intersection(short, long) == expected)
            #expect(SortedSlots.intersection(long, short) == expected)
        }
    }
}
