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

    @Test func theMergeIntersectionAndEqualityMatchSets() {
        var random = SeededGenerator(seed: 25)
        for _ in 0..<500 {
            func list(_ count: Int) -> [Int32] {
                Array(Set((0..<count).map { _ in Int32.random(in: 0..<3000, using: &random) }))
                    .sorted()
            }
            // Lengths within 16 of each other, so the merge, not the gallop, answers.
            let a = list(Int.random(in: 0...1500, using: &random))
            let b = list(Int.random(in: a.count / 8...max(a.count / 8, 1500), using: &random))
            let expected = Set(a).intersection(b).sorted()
            #expect(SortedSlots.intersection(a, b) == expected)
            #expect(SortedSlots.intersection(b, a) == expected)
            #expect(SortedSlots.equal(a, b) == (a == b))
            #expect(SortedSlots.equal(a, a))
            #expect(SortedSlots.union(a, b) == Set(a).union(b).sorted())
            let c = list(Int.random(in: 0...3000, using: &random))
            #expect(
                SortedSlots.intersection(of: [c, a, b].map(GramList.init(slots:)))
                    == Set(a).intersection(b).intersection(c).sorted())
        }
        #expect(SortedSlots.intersection(of: []).isEmpty)
    }

    /// A bitmap is a set: insertion in the room reserved says whether a slot was new,
    /// insertion past it grows the set, iteration gives the slots
    /// in rising order (across word boundaries and past the room reserved), and clearing
    /// forgets them all, or a word's worth.
    @Test func aBitmapIsASetOfSlotsIteratedInOrder() {
        var random = SeededGenerator(seed: 34)
        var bitmap = SlotBitmap(covering: 1_000)
        for round in 0..<30 {
            var set: Set<Int32> = []
            for _ in 0..<(round * 37) {
                let slot = Int32.random(in: 0..<(round % 2 == 0 ? 1_000 : 5_000), using: &random)
                if slot < 1_000 {
                    #expect(bitmap.inserting(reserved: slot) == set.insert(slot).inserted)
                } else {
                    bitmap.insert(slot)
                    set.insert(slot)
                }
            }
            bitmap.insert(-1)
            #expect(!bitmap.contains(-1))
            #expect(Array(bitmap) == set.sorted())
            #expect((0..<5_100).allSatisfy { bitmap.contains($0) == set.contains($0) })
            if let first = set.min() {
                bitmap.removeWord(holding: first)
                let word = first / 64
                #expect(Array(bitmap) == set.filter { $0 / 64 != word }.sorted())
            }
            bitmap.removeAll()
            #expect(Array(bitmap).isEmpty && !bitmap.isUnallocated)
        }
    }

    /// Dense lists answer from their bitmaps: the same intersections as sets, with slots
    /// added out of order and twice, and identical lists among the inputs.
    @Test func denseListsIntersectThroughTheirBitmapsAsSets() {
        var random = SeededGenerator(seed: 28)
        for round in 0..<40 {
            var lists: [GramList] = []
            var sets: [Set<Int32>] = []
            for index in 0..<4 {
                // Two dense lists (a bitmap from 1,024 slots on) and two sparse ones.
                let universe = Int32(index < 2 ? 20_000 : 200_000)
                let count = index < 2 ? Int.random(in: 1_024...6_000, using: &random) : 1_500
                var list = GramList()
                var set: Set<Int32> = []
                for _ in 0..<count {
                    let slot = Int32.random(in: 0..<universe, using: &random)
                    list.append(slot)
                    set.insert(slot)
                }
                list.normalize()
                #expect(list.slots == set.sorted())
                #expect(list.hasBitmap == (index < 2))
                lists.append(list)
                sets.append(set)
            }
            if round % 3 == 0 { lists.append(lists[0]) }
            let expected = sets.dropFirst().reduce(sets[0]) { $0.intersection($1) }.sorted()
            #expect(SortedSlots.intersection(of: lists) == expected)
            #expect(
                SortedSlots.intersection(of: Array(lists.prefix(2)))
                    == sets[0].intersection(sets[1]).sorted())
            #expect(lists[0].filter(lists[2].slots) == sets[2].intersection(sets[0]).sorted())
        }
    }

    /// A query of several words finds the same candidates from its words' lists and the
    /// grams spanning its spaces as from all its grams, and never misses a text holding it.
    @Test func candidatesFromTheWordsEqualThoseFromEveryGram() {
        var random = SeededGenerator(seed: 27)
        var postings = GramPostings()
        var texts: [[UInt32]] = []
        for document in 0..<600 {
            // Short words of few letters, so phrases recur and words overlap across spaces.
            let words = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    UInt32(0x61 + Int.random(in: 0..<4, using: &random))
                }
            }
            let text = Array(words.joined(separator: [0x20]))
            texts.append(text)
            postings.add(Int32(document), text: text)
            if document % 7 == 0 {  // stale postings: the document indexed again, changed
                postings.add(Int32(document), text: text + [0x20, 0x62])
            }
        }
        postings.normalize()
        for round in 0..<300 {
            let source = texts[round % texts.count]
            let start = Int.random(in: 0..<source.count, using: &random)
            let end = Int.random(in: start...min(source.count, start + 9), using: &random)
            let needle =
                round % 3 == 0 ? Self.text(&random, length: 5) : Array(source[start..<end])
            let words = needle.split(separator: 0x20).map(Array.init)
            guard !needle.isEmpty else { continue }
            let lists = words.map { postings.candidates(containing: $0) ?? [] }
            let fromWords = postings.candidates(containing: needle, givenWords: lists)
            #expect(fromWords == postings.candidates(containing: needle), "\(needle)")
            let holding = texts.indices.filter { SearchIndex.contains(texts[$0], needle) }.map(
                Int32.init)
            #expect(Set(holding).isSubset(of: fromWords))
        }
    }

    /// The per-query table of similarity ceilings by length answers as the facts do, in
    /// the table and past it (queries longer than the table holds).
    @Test func lengthCeilingsMatchTheFactsTheyAreBuiltFrom() {
        for queryLength in [0, 1, 2, 5, 11, 19, 40, 700, 3000] {
            let table = SearchIndex.LengthCeilings(queryLength: queryLength)
            for nameLength in Array(0...80) + [699, 700, 1023, 1024, 1025, 2000, 4600, 5000] {
                let facts = SearchIndex.SlotFacts(indexed: true, nameLength: Int32(nameLength))
                let expected =
                    facts.mayBeSimilar(queryLength: queryLength)
                    ? facts.similarityCeiling(
                        queryLength: queryLength, common: min(nameLength, queryLength)) : 0
                #expect(table[Int32(nameLength)] == expected, "\(queryLength) \(nameLength)")
            }
        }
    }

    @Test func touchedSlotsComeInSlotOrderFromTheBitsAndClearForTheNextQuery() {
        var random = SeededGenerator(seed: 26)
        var scratch = CandidateMarks.Scratch()
        for round in 0..<20 {
            // Few touched (sorted) and many (read from the bits), over the same scratch.
            let count = round % 2 == 0 ? 40 : 3000
            var marks = CandidateMarks(reusing: scratch, slots: 10_000)
            let slots = (0..<count).map { _ in Int32.random(in: 0..<10_000, using: &random) }
            marks.mark(slots) { $0.nameWords &+= 1 }
            #expect(marks.touchedInSlotOrder() == Array(Set(slots)).sorted())
            marks.markTouched([slots[0], 9_999]) { $0.contentWords &+= 1 }
            #expect(marks[slots[0]].contentWords == 1)
            #expect(marks.isTouched(9_999) == slots.contains(9_999))
            scratch = marks.clearedScratch()
            let cleared = CandidateMarks(reusing: scratch, slots: 10_000)
            #expect(cleared.touchedInSlotOrder().isEmpty)
            #expect(
                slots.allSatisfy {
                    !cleared.isTouched($0) && cleared[$0].nameWords == 0
                        && cleared[$0].contentWords == 0
                })
        }
    }

    @Test func wordListsLeaveOutWhatCannotReachTheFloorAndGroupIdenticalLists() {
        let room = Array(Int32(0)..<3000)
        let living = Array(Int32(0)..<600)
        let speaker = Array(Int32(400)..<1100)
        // "living room speaker" with a floor of 3.8 from the whole-query lists: "room", the
        // longest, is left out (1.5 + 1 < 3.8); "living" and "speaker" cannot both be.
        var words = QueryWordLists(name: [living, room, speaker], content: [[], [], []])
        #expect(words.groups.map(\.count) == [3000, 700, 600])
        var marks = CandidateMarks(reusing: CandidateMarks.Scratch(), slots: 3000)
        var marked: [Int] = []
        while let next = words.nextToMark(floor: 3.8) {
            marked.append(words.groups[next].count)
            words.mark(next, in: &marks)
        }
        #expect(marked == [600, 700])  // the most score per entity first
        words.markRemainingOnTouched(in: &marks)
        #expect(marks.touched.count == 1100)
        #expect(marks[500].nameWords == 3 && marks[0].nameWords == 2 && marks[2000].nameWords == 0)
        // With no floor every list is needed; two identical lists are one group of 3.0.
        let twins = QueryWordLists(name: [living, living], content: [speaker])
        #expect(twins.groups.map(\.share) == [0.5, 3.0])
        #expect(twins.nextToMark(floor: 0) == 1)
        // A floor above every share left out, plus the similarity term: nothing to mark.
        #expect(twins.nextToMark(floor: 4.6) == nil)
        #expect(twins.nextToMark(floor: 4.5) != nil)  // a tie at the floor could still rank
    }
}
