import CMemoryHints

/// Search's candidates: every entity a posting list names, with an upper bound on its score,
/// in a queue that only holds what can still reach the results.
extension SearchIndex {
    /// Marks what the lists name, bounds each candidate, scores the best-bounded few exactly
    /// for a floor under the final `limit`-th score, and queues the candidates that can reach
    /// it. The marks are returned for the caller to consult and then give back
    /// (`scratchHits = marks.clearedScratch()`).
    func boundedCandidates(
        _ parsed: Query, nameFull: [Int32], contentFull: [Int32], types: Set<String>?,
        limit: Int
    ) -> (BoundQueue, CandidateMarks) {
        // The scratch array is all-clear between queries; taken out so marking does not
        // check its uniqueness on every write, and cleared again before it is put back.
        var marks = CandidateMarks(reusing: scratchHits, slots: documents.count)
        scratchHits = []
        marks.mark(nameFull) { $0.nameFull = true }
        marks.mark(contentFull) { $0.contentFull = true }
        for word in parsed.words {
            marks.mark(namePostings.candidates(containing: word) ?? []) { $0.nameWords &+= 1 }
            marks.mark(contentPostings.candidates(containing: word) ?? []) {
                $0.contentWords &+= 1
            }
        }
        for valueId in valuePostings.candidates(containing: parsed.scalars) ?? [] {
            let slot = valueOwners[Int(valueId)]
            guard valueId >= firstValueIds[Int(slot)] else { continue }  // a stale value
            marks.mark(slot) { $0.valueMatches &+= 1 }
        }

        // In slot order, the per-slot arrays are read as streams, not at random; and from
        // local copies, since reading a class's arrays in the loop would check exclusive
        // access on every read.
        let facts = facts
        let queryLength = parsed.scalars.count
        var candidates: [(slot: Int32, bound: Double)] = []
        candidates.reserveCapacity(marks.touched.count)
        var leaders = LeadingCandidates(capacity: max(limit, 16))
        for slot in marks.touchedInSlotOrder() {
            let fact = facts[Int(slot)]
            guard fact.indexed else { continue }
            if let types, !documents[Int(slot)].passes(types) { continue }
            let bound = fact.bound(marks[slot], queryLength: queryLength)
            candidates.append((slot, bound))
            leaders.offer(slot, bound: bound)
        }
        let floor = scoreFloor(leaders.slots, parsed, limit: limit)
        // The similarity term last: by lengths, then, for what can still reach the floor,
        // by the character histograms (a cache miss each, so only for those, and those
        // loaded a few candidates ahead so the misses overlap).
        var queue = BoundQueue()
        var histogramChecks: [(slot: Int32, base: Double, byLengths: Double)] = []
        for (slot, base) in candidates where base + 1 >= floor {  // the term adds at most 1
            let fact = facts[Int(slot)]
            var ceiling = 0.0
            if fact.mayBeSimilar(queryLength: queryLength) {
                let shorter = min(Int(fact.nameLength), queryLength)
                ceiling = fact.similarityCeiling(queryLength: queryLength, common: shorter)
                if ceiling > 0 && base + ceiling >= floor && shorter <= 255 {
                    histogramChecks.append((slot, base, ceiling))
                    continue
                }
            }
            guard base + ceiling >= floor else { continue }
            queue.append(slot, bound: base + ceiling, refined: ceiling == 0)
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
                queue.append(slot, bound: base + ceiling, refined: ceiling == 0)
            }
        }
        queue.heapify()
        return (queue, marks)
    }

    /// The `limit`-th best exact score among `leaders` (0 when fewer score above 0): the
    /// final `limit`-th score is at least this, so no candidate bounded below it can rank.
    private func scoreFloor(_ leaders: [Int32], _ query: Query, limit: Int) -> Double {
        var noHighlights: [String: [String]]? = nil
        var scores: [Double] = []
        for slot in leaders {
            guard let derived = texts[Int(slot)] else { continue }
            let score = Self.score(
                documents[Int(slot)].name, derived, query, fuzzy: mayBeSimilar(slot, query),
                highlights: &noHighlights)
            if score > 0 { scores.append(score) }
        }
        guard scores.count >= limit else { return 0 }
        scores.sort(by: >)
        return scores[limit - 1]
    }
}
