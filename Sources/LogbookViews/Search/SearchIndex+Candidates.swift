import CMemoryHints

/// Search's candidates: every entity a posting list names, with an upper bound on its score,
/// in a queue that only holds what can still reach the results.
extension SearchIndex {
    /// Marks what the lists name, bounds each candidate, scores the best-bounded few exactly
    /// for a floor under the final `limit`-th score, and queues the candidates that can reach
    /// it. The marks are returned for the caller to consult and then give back
    /// (`scratchMarks = marks.clearedScratch()`).
    ///
    /// The lists of single words are marked one by one (`QueryWordLists`), each after a floor
    /// from what is marked so far, until those left cannot lift an entity they alone name
    /// to the floor; those are applied only to the entities already marked.
    func boundedCandidates(
        _ parsed: Query, _ lists: QueryPostings, types: Set<String>?, limit: Int
    ) -> (BoundQueue, CandidateMarks) {
        // The scratch array is all-clear between queries; taken out so marking does not
        // check its uniqueness on every write, and cleared again before it is put back.
        var marks = CandidateMarks(reusing: scratchMarks, slots: documents.count)
        scratchMarks = CandidateMarks.Scratch()
        marks.mark(lists.nameFull) { $0.nameFull = true }
        marks.mark(lists.contentFull) { $0.contentFull = true }
        for valueId in valuePostings.candidates(containing: parsed.scalars) ?? [] {
            let slot = valueOwners[Int(valueId)]
            guard valueId >= firstValueIds[Int(slot)] else { continue }  // a stale value
            marks.mark(slot) { $0.countValueMatch() }
        }
        var words = QueryWordLists(name: lists.nameWords, content: lists.contentWords)

        // From local copies: reading a class's arrays in the loops would check exclusive
        // access on every read.
        let facts = facts
        var floor = 0.0
        // The leaders the floor was last computed from, and their exact scores: after a
        // group is marked only its entities' bounds rose, so the next leaders are among
        // those and the group's (every other entity still trails the old leaders).
        var leaders: [Int32] = []
        var exactScores: [Int32: Double] = [:]
        var offered = marks.touchedInSlotOrder()
        // A floor costs a pass over what it is offered: a query of many words gets a few,
        // then marks what the last one leaves needed.
        var floorsLeft = 8
        while true {
            if floorsLeft > 0 {
                floorsLeft -= 1
                leaders = leadingSlots(
                    offered, marks, parsed, facts: facts, types: types, limit: limit)
                floor = max(floor, scoreFloor(leaders, parsed, limit: limit, known: &exactScores))
            }
            guard let next = words.nextToMark(floor: floor) else { break }
            words.mark(next, in: &marks)
            // When the floor already leaves every other group out, a new one would only
            // prune the queue a little more, for a pass over the group just marked (7 k
            // entities, 7 % of "living room speaker" alone).
            if words.nextToMark(floor: floor) == nil { break }
            if floorsLeft > 0 {
                offered = SortedSlots.union(leaders.sorted(), words.groups[next].slots)
            }
        }
        words.markRemainingOnTouched(in: &marks)
        return (queue(marks, floor: floor, parsed, facts: facts, types: types), marks)
    }

    /// The marked candidates that are indexed, of one of `types` when given, and whose
    /// bounds reach `floor`, heapified. Read in slot order, so the per-slot arrays stream.
    /// The similarity term last: by lengths, then, for what can still reach the floor, by
    /// the character histograms (a cache miss each, so only for those, and those loaded a
    /// few candidates ahead so the misses overlap).
    private func queue(
        _ marks: CandidateMarks, floor: Double, _ parsed: Query, facts: [SlotFacts],
        types: Set<String>?
    ) -> BoundQueue {
        let queryLength = parsed.scalars.count
        var queue = BoundQueue()
        var histogramChecks: [(slot: Int32, base: Double, byLengths: Double)] = []
        let lengthCeilings = LengthCeilings(queryLength: queryLength)
        for slot in marks.touchedInSlotOrder() {
            let fact = facts[Int(slot)]
            guard fact.indexed else { continue }
            if let types, !documents[Int(slot)].passes(types) { continue }
            let hits = marks[slot]
            let base = fact.bound(hits, queryLength: queryLength)
            guard base + 1 >= floor else { continue }  // the term adds at most 1
            // Refined at the front: the name tells whether it holds the query.
            let settled = !fact.nameTermIsUncertain(hits)
            let ceiling = lengthCeilings[fact.nameLength]
            if ceiling > 0 && base + ceiling >= floor
                && min(Int(fact.nameLength), queryLength) <= 255
            {
                histogramChecks.append((slot, base, ceiling))
                continue
            }
            guard base + ceiling >= floor else { continue }
            queue.append(slot, bound: base + ceiling, refined: ceiling == 0 && settled)
        }
        nameHistograms.withUnsafeBufferPointer { histograms in
            let ahead = 8
            for index in histogramChecks.indices {
                if index + ahead < histogramChecks.count, let start = histograms.baseAddress {
                    let next = Int(histogramChecks[index + ahead].slot)
                    if next < histograms.count { logbook_prefetch_for_read(start + next) }
                }
                let (slot, base, byLengths) = histogramChecks[index]
                // Unchecked in release: the slot is read only when the buffer holds it.
                let ceiling =
                    Int(slot) < histograms.count
                    ? facts[Int(slot)].similarityCeiling(
                        queryLength: queryLength,
                        common: histograms[Int(slot)].commonBound(with: parsed.histogram))
                    : byLengths
                guard base + ceiling >= floor else { continue }
                let settled = !facts[Int(slot)].nameTermIsUncertain(marks[slot])
                queue.append(slot, bound: base + ceiling, refined: ceiling == 0 && settled)
            }
        }
        queue.heapify()
        return queue
    }

    /// Of `offered` (in slot order), the indexed ones of `types` whose bounds lead (in
    /// slot order: which leaders are picked among equal bounds changes how high the floor
    /// is, never whether it is one).
    private func leadingSlots(
        _ offered: [Int32], _ marks: CandidateMarks, _ query: Query, facts: [SlotFacts],
        types: Set<String>?, limit: Int
    ) -> [Int32] {
        var leaders = LeadingCandidates(capacity: max(limit, 16))
        for slot in offered {
            let fact = facts[Int(slot)]
            guard fact.indexed else { continue }
            if let types, !documents[Int(slot)].passes(types) { continue }
            leaders.offer(slot, bound: fact.bound(marks[slot], queryLength: query.scalars.count))
        }
        return leaders.slots
    }

    /// The `limit`-th best exact score among `leaders` (0 when fewer score above 0): the
    /// final `limit`-th score is at least this, so no candidate bounded below it can rank.
    /// `known` keeps the scores computed, for the next floor of the query.
    private func scoreFloor(
        _ leaders: [Int32], _ query: Query, limit: Int, known: inout [Int32: Double]
    ) -> Double {
        var noHighlights: [String: [String]]? = nil
        var scores: [Double] = []
        for slot in leaders {
            if let score = known[slot] {
                if score > 0 { scores.append(score) }
                continue
            }
            guard let derived = texts[Int(slot)] else { continue }
            let score = Self.score(
                documents[Int(slot)].name, derived, query, fuzzy: mayBeSimilar(slot, query),
                highlights: &noHighlights)
            known[slot] = score
            if score > 0 { scores.append(score) }
        }
        guard scores.count >= limit else { return 0 }
        scores.sort(by: >)
        return scores[limit - 1]
    }
}
