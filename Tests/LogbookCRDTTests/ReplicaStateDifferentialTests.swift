import LogbookCRDT
import LogbookTesting
import Testing

// `ReplicaState` against `CRDT<String, String, Value>`, the crdt-lite-compatible reference:
// both replicas of each node see the same seeded history (local writes, field and record
// deletions, re-inserts, forgotten tombstones, partial syncs of history or state, full
// exchanges, rebuilds), and
// every call must return the same changes and leave the same state: fields, column versions
// with their local stamps, tombstones and clock. Id pools of 6, 60 and 3,000 records give
// hot records, batches longer than the merge loop's prefetch distance, and id-table growth.
@Suite struct ReplicaStateDifferentialTests {
    static let seeds: [UInt64] = Array(1...40)

    /// One node held twice: by the reference CRDT and by the specialized state.
    final class Twin {
        let reference: TestCRDT
        let state: ReplicaState
        var accepted: [TestChange] = []
        init(id: NodeId) {
            reference = TestCRDT(nodeId: id)
            state = ReplicaState(nodeId: id)
        }
    }

    private func randomValue(_ random: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: .int(Int64.random(in: -5...5, using: &random))
        case 1:
            .string(
                ["a", "b", "a longer string than fits inline"].randomElement(using: &random) ?? "a")
        case 2: .bool(random.chance(0.5))
        case 3: .array([.int(1), .string("x")])
        default: .null
        }
    }

    private func randomStep(_ twins: [Twin], ids: Int, _ random: inout SeededGenerator) {
        let twin = twins[Int.random(in: 0..<twins.count, using: &random)]
        let recordId = "record/\(Int.random(in: 0..<ids, using: &random))"
        let column = "c\(Int.random(in: 0..<4, using: &random))"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
            let fields = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                ("c\(Int.random(in: 0..<4, using: &random))", randomValue(&random))
            }
            let expected = twin.reference.insertOrUpdate(recordId, fields: fields)
            #expect(twin.state.insertOrUpdate(recordId, fields: fields) == expected)
            twin.accepted += expected
        case 55..<70:
            let expected = twin.reference.deleteField(recordId, fieldName: column)
            #expect(twin.state.deleteField(recordId, fieldName: column) == expected)
            twin.accepted += [expected].compactMap { $0 }
        case 70..<76:
            let expected = twin.reference.deleteRecord(recordId)
            #expect(twin.state.deleteRecord(recordId) == expected)
            twin.accepted += [expected].compactMap { $0 }
        case 76..<79:
            // Tombstone GC's last step: the ids become writable again, entries are freed.
            let tombstoned = twin.reference.getTombstones().keys.sorted()
            let forgotten = tombstoned.filter { _ in random.chance(0.5) }
            #expect(
                twin.state.forgetTombstones(forgotten)
                    == twin.reference.forgetTombstones(forgotten))
        default:
            partialSync(twins, &random)
        }
        if random.chance(0.1) { expectSameDigest(twin, "after a step") }
    }

    /// The state's digest, kept incrementally since its last one, equals a walk of the
    /// reference's records.
    private func expectSameDigest(_ twin: Twin, _ context: Comment) {
        var terms = DescribingTerms()
        #expect(twin.state.digestSum(&terms) == DescribingTerms.walked(twin.reference), context)
    }

    /// Ships a shuffled slice of one node's history, or its state since a random version.
    private func partialSync(_ twins: [Twin], _ random: inout SeededGenerator) {
        let source = twins[Int.random(in: 0..<twins.count, using: &random)]
        let target = twins[Int.random(in: 0..<twins.count, using: &random)]
        guard source !== target else { return }
        let shipped = randomShipment(
            history: source.accepted, replica: source.reference, &random)
        merge(shipped, into: target)
    }

    private func merge(_ shipped: [TestChange], into target: Twin) {
        let expected = target.reference.mergeChanges(shipped)
        let accepted = target.state.mergeChanges(shipped)
        #expect(accepted == expected)
        target.accepted += expected
    }

    private func expectSameState(_ twin: Twin, _ context: Comment) {
        let state = twin.state.getData()
        let reference = twin.reference.getData()
        #expect(state == reference, context)
        #expect(state.mapValues(\.columnVersions) == reference.mapValues(\.columnVersions), context)
        #expect(
            state.mapValues { [$0.lowestLocalDbVersion, $0.highestLocalDbVersion] }
                == reference.mapValues { [$0.lowestLocalDbVersion, $0.highestLocalDbVersion] },
            context)
        #expect(twin.state.getTombstones() == twin.reference.getTombstones(), context)
        #expect(twin.state.getClock() == twin.reference.getClock(), context)
        #expect(twin.state.recordCount == reference.count, context)
        expectSameDigest(twin, context)
        twin.state.checkInvariants()
    }

    private func randomRun(seed: UInt64) -> [Twin] {
        var random = SeededGenerator(seed: seed)
        let twins = (1...Int.random(in: 2...5, using: &random)).map { Twin(id: NodeId($0)) }
        let ids = [6, 60, 3_000][Int(seed % 3)]
        for _ in 0..<Int.random(in: 200...1_500, using: &random) {
            randomStep(twins, ids: ids, &random)
        }
        return twins
    }

    @Test(arguments: seeds)
    func everyCallAndTheFinalStateMatchTheCRDT(seed: UInt64) {
        let twins = randomRun(seed: seed)
        for twin in twins { expectSameState(twin, "seed=\(seed), before the exchange") }
        for _ in 0..<2 {
            for source in twins {
                for target in twins where target !== source {
                    merge(source.reference.getChangesSince(0), into: target)
                }
            }
        }
        for twin in twins { expectSameState(twin, "seed=\(seed), after the exchange") }
    }

    @Test(arguments: seeds)
    func restoringAcceptedHistoryMatchesTheCRDTsRebuild(seed: UInt64) {
        for twin in randomRun(seed: seed) {
            let rebuilt = Twin(id: twin.reference.getNodeId())
            rebuilt.reference.restore(twin.accepted)
            rebuilt.state.restore(twin.accepted)
            expectSameState(rebuilt, "seed=\(seed), rebuilt")
        }
    }

    /// Paging the state in id order (`statePageCandidates`, `order`, `statePage`) gives the
    /// reference's `firstById` pages: the same records and changes, and the same next id.
    @Test(arguments: seeds)
    func statePagesMatchTheCRDTsPagesById(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed &+ 500)
        for twin in randomRun(seed: seed) {
            let changesMax = Int.random(in: 1...40, using: &random)
            var after: String? = nil
            var pages = 0
            repeat {
                var candidates = twin.state.statePageCandidates(after: after)
                candidates.order(changesMax: changesMax)
                let (page, nextAfter) = twin.state.statePage(
                    from: candidates, changesMax: changesMax)
                let (expected, more) = twin.reference.changedState(since: 0, idsAfter: after)
                    .firstById(changesMax: changesMax)
                #expect(page.entries.map(\.id) == expected.entries.map(\.id), "seed \(seed)")
                #expect(page.changes() == expected.changes(), "seed \(seed)")
                #expect(nextAfter == (more ? expected.entries.last?.id : nil), "seed \(seed)")
                after = nextAfter
                pages += 1
                try #require(pages < 10_000, "seed \(seed): paging does not end")
            } while after != nil
        }
    }

    /// Between the walk and the page, a record's tombstone is collected and its entry given
    /// to a new id: the page passes over it (the new id is not the one sorted there), keeps
    /// a deletion added from outside the replica in id order, and the next page starts
    /// after the last candidate considered.
    @Test func aStatePagePassesOverEntriesCollectedAfterItsWalk() {
        let state = ReplicaState(nodeId: 1)
        for id in ["a", "b", "c", "d"] { state.insertOrUpdate(id, fields: [("x", .int(1))]) }
        state.deleteRecord("b")
        state.deleteRecord("c")
        var candidates = state.statePageCandidates(after: nil)
        candidates.appendDeletion(
            id: "bb", TombstoneInfo(dbVersion: 9, nodeId: 2, localDbVersion: 9))
        candidates.order(changesMax: 3)
        state.forgetTombstones(["b", "c"])
        state.insertOrUpdate("e", fields: [("x", .int(2))])
        // In id order: a, b (gone), bb; three candidates for three changes.
        let (page, nextAfter) = state.statePage(from: candidates, changesMax: 3)
        #expect(page.entries.map(\.id) == ["a", "bb"])
        #expect(page.changeCount == 2)
        #expect(nextAfter == "bb")
        var rest = state.statePageCandidates(after: nextAfter)
        rest.order(changesMax: 10)
        let (last, end) = state.statePage(from: rest, changesMax: 10)
        #expect(last.entries.map(\.id) == ["d", "e"])
        #expect(end == nil)
    }

    /// Within one batch, new ids come back within the prefetch distance, a record is deleted
    /// and written again, and the id table grows past its first capacity several times: the
    /// prefetched guesses go stale, and the merge must not act on them.
    @Test func oneBatchThatCreatesDeletesAndRevisitsIdsMatchesTheCRDT() {
        var random = SeededGenerator(seed: 7)
        var batch: [TestChange] = []
        for step in 0..<20_000 {
            let id = "r\(Int.random(in: 0..<(step / 4 + 1), using: &random))"
            let db = UInt64(step + 1)
            if random.chance(0.03) {
                batch.append(change(id, nil, nil, col: tombstoneColumnVersion, db: db, node: 3))
            } else {
                batch.append(
                    change(
                        id, "c\(step % 3)", .int(Int64(step)),
                        col: UInt64.random(in: 1...3, using: &random), db: db,
                        node: NodeId.random(in: 1...4, using: &random)))
            }
        }
        let twin = Twin(id: 9)
        merge(batch, into: twin)
        expectSameState(twin, "one batch")
        #expect(twin.state.tombstoneCount() > 0)
        #expect(twin.state.recordCount > 1_000)
    }
}
