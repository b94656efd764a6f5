import LogbookCRDT
import LogbookTesting
import Testing

/// Terms from a record's text, hashed with two FNV-1a lanes; counts its calls, so a test can
/// tell how many records a digest recomputed.
struct DescribingTerms: EntryDigesting {
    var calls = 0

    mutating func live(_ recordId: String, _ record: Record<String, Value>) -> DigestSum {
        calls += 1
        var sum = hashed("R|\(recordId)")
        record.forEachColumn { column, version, value in
            sum =
                sum
                + hashed(
                    "C|\(recordId)|\(column)|\(version.colVersion)|\(version.dbVersion)|"
                        + "\(version.nodeId)|\(String(describing: value))")
        }
        return sum
    }

    mutating func tombstoned(_ recordId: String) -> DigestSum {
        calls += 1
        return hashed("T|\(recordId)")
    }

    private func hashed(_ text: String) -> DigestSum {
        var first: UInt64 = 0xCBF2_9CE4_8422_2325
        var second: UInt64 = 0x84222325CBF29CE4
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second &+ UInt64(byte)) &* 0x9E37_79B9_7F4A_7C15
        }
        return DigestSum(high: first, low: second)
    }

    /// The sum over a `CRDT`'s records and tombstones, walked.
    static func walked(_ replica: TestCRDT) -> DigestSum {
        var terms = DescribingTerms()
        var sum = DigestSum.zero
        for (recordId, record) in replica.getData() { sum = sum + terms.live(recordId, record) }
        for recordId in replica.getTombstones().keys { sum = sum + terms.tombstoned(recordId) }
        return sum
    }
}

// `ReplicaState`'s digest is kept as records change: a digest recomputes only the records
// changed since the previous one (the differential tests hold every digest taken on a
// seeded history equal to a walk of the reference `CRDT`).
@Suite struct ReplicaStateDigestTests {
    @Test func aDigestRecomputesOnlyTheRecordsChangedSinceTheLastOne() {
        let state = ReplicaState(nodeId: 1)
        for index in 0..<5_000 { state.insertOrUpdate("r\(index)", fields: [("n", .int(1))]) }
        var terms = DescribingTerms()
        _ = state.digestSum(&terms)
        #expect(terms.calls == 5_000)

        state.insertOrUpdate("r1", fields: [("n", .int(2))])
        state.insertOrUpdate("r1", fields: [("m", .int(3))])
        state.deleteRecord("r2")
        _ = state.deleteField("r3", fieldName: "n")
        state.mergeChanges([
            Change(
                recordId: "r4", colName: "n", value: .int(9), colVersion: 5, dbVersion: 99,
                nodeId: 2, localDbVersion: 0),
            Change(
                recordId: "r5", colName: "n", value: .int(9), colVersion: 0, dbVersion: 1,
                nodeId: 0, localDbVersion: 0),  // loses: not recomputed
        ])
        terms.calls = 0
        let sum = state.digestSum(&terms)
        #expect(terms.calls == 4)  // r1, r2, r3, r4

        terms.calls = 0
        #expect(state.digestSum(&terms) == sum)
        #expect(terms.calls == 0)
    }

    @Test func aForgottenTombstoneAndTheIdThatReusesItsEntryAreCounted() {
        let state = ReplicaState(nodeId: 1)
        let reference = TestCRDT(nodeId: 1)
        state.insertOrUpdate("a", fields: [("n", .int(1))])
        state.deleteRecord("a")
        reference.insertOrUpdate("a", fields: [("n", .int(1))])
        reference.deleteRecord("a")
        var terms = DescribingTerms()
        #expect(state.digestSum(&terms) == DescribingTerms.walked(reference))
        #expect(state.forgetTombstones(["a"]) == reference.forgetTombstones(["a"]))
        #expect(state.digestSum(&terms) == DescribingTerms.walked(reference))
        state.insertOrUpdate("b", fields: [("n", .int(2))])  // takes a's freed entry
        reference.insertOrUpdate("b", fields: [("n", .int(2))])
        #expect(state.digestSum(&terms) == DescribingTerms.walked(reference))
        #expect(state.digestSum(&terms) != .zero)
    }

    @Test func manyChangesBetweenDigestsRecomputeEverythingAndStillAgree() {
        let state = ReplicaState(nodeId: 1)
        let reference = TestCRDT(nodeId: 1)
        var terms = DescribingTerms()
        #expect(state.digestSum(&terms) == .zero)
        var batch: [TestChange] = []
        for index in 0..<3_000 {
            batch.append(
                Change(
                    recordId: "r\(index % 2_000)", colName: "c\(index % 3)",
                    value: .int(Int64(index)), colVersion: 1, dbVersion: UInt64(index + 1),
                    nodeId: 2, localDbVersion: 0))
        }
        #expect(state.mergeChanges(batch) == reference.mergeChanges(batch))
        #expect(state.digestSum(&terms) == DescribingTerms.walked(reference))
    }
}
