import Testing

@testable import LogbookCRDT

// The id table keeps, beside each record's number, where the record's columns were last
// seen, for a lookup to prefetch. The hint decides nothing, so these tests check that it is
// what it should be: kept with its number as slots move, and current after each local write.
@Suite struct ColumnsHintTests {
    /// A hint for `bytes` bytes of columns at a made-up address (never read through).
    func hint(at address: UInt, bytes: Int) -> ColumnsHint {
        ColumnsHint(
            of: UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: bytes))
    }

    @Test func aHintCoversTheArrayHeaderAndItsColumnsUpToItsLimit() {
        let small = hint(at: 0x7F00_0000_1000, bytes: 5 * 72)
        #expect(small.address == 0x7F00_0000_1000 - UInt(ColumnsHint.arrayHeaderBytes))
        #expect(small.byteCount == 5 * 72 + ColumnsHint.arrayHeaderBytes)
        let wide = hint(at: 0x7F00_0000_1000, bytes: 40 * 72)
        #expect(wide.byteCount == ColumnsHint.bytesMax)
        #expect(hint(at: 0x7F00_0000_1000, bytes: 0) == .none)
        #expect(ColumnsHint.none.address == nil)
    }

    /// 3,000 numbers on 30 hashes, each with its own hint; then every third removed (the
    /// slots after it shift back) and more added (the table grows): each number left keeps
    /// its own hint, and a removed one has none.
    @Test func hintsStayWithTheirNumbersThroughRemovalAndGrowth() {
        var table = RecordIdTable()
        var held: [Int: ColumnsHint] = [:]
        func add(_ number: Int) {
            let hash = UInt64(number % 30)
            guard case .vacant(let slot) = table.locate(hash, where: { $0 == number }) else {
                Issue.record("\(number) found before it was inserted")
                return
            }
            table.insert(number, forHash: hash, at: slot)
            let noted = hint(at: 0x10_0000 + UInt(number) * 4_096, bytes: 8 + number % 300)
            table.noteColumns(noted, of: number, forHash: hash)
            held[number] = noted
        }
        for number in 0..<2_000 { add(number) }
        for number in stride(from: 0, to: 2_000, by: 3) {
            let removed = table.remove(number, forHash: UInt64(number % 30))
            #expect(removed)
            held[number] = nil
        }
        for number in 2_000..<3_000 { add(number) }
        for number in 0..<3_000 {
            let kept = table.columnsHint(of: number, forHash: UInt64(number % 30))
            #expect(kept == held[number], "number \(number)")
        }
    }

    /// After every single local write, the slot's hint is where the record's columns now
    /// lie: as a new record gets its first columns, as its columns outgrow their first
    /// allocation, after a field is deleted, and through each form of the call. A batch's
    /// writes (which prefetch on their own) leave the hints alone.
    @Test func eachSingleLocalWriteLeavesTheHintWhereTheColumnsAre() throws {
        let state = ReplicaState(nodeId: 1)
        /// The hint kept for `id`, and the one its columns have now.
        func hints(_ id: String) -> (kept: ColumnsHint?, current: ColumnsHint)? {
            let storage = state.storage
            guard let number = storage.number(of: id) else { return nil }
            let current = storage.entries[number].record.slots.withUnsafeBytes {
                ColumnsHint(of: $0)
            }
            return (storage.table.columnsHint(of: number, forHash: storage.hash(id)), current)
        }
        func expectCurrent(_ id: String, _ comment: Comment) {
            guard let (kept, current) = hints(id) else {
                Issue.record("no number for \(id)")
                return
            }
            #expect(current != .none, comment)
            #expect(kept == current, comment)
        }
        state.insertOrUpdate("a", fields: [("c0", .int(0))])
        expectCurrent("a", "a new record, plain write")
        var changes: [Change<String, String, Value>] = []
        for column in 1..<20 {
            try state.insertOrUpdate(
                "a", fields: [("c\(column)", .int(Int64(column)))],
                refusingColumnVersionsFrom: .max, reusing: &changes)
            expectCurrent("a", "after column \(column), one field")
        }
        try state.insertOrUpdate(
            "b", fields: (0..<30).map { ("c\($0)", .int(Int64($0))) },
            refusingColumnVersionsFrom: .max, reusing: &changes)
        expectCurrent("b", "thirty fields at once")
        _ = try state.deleteField("b", fieldName: "c3", refusingColumnVersionsFrom: .max)
        expectCurrent("b", "after a field deletion")
        let outcome = state.write(
            [.insertOrUpdate("c", fields: [("x", .bool(true)), ("y", .null)])], flags: 0,
            refusingColumnVersionsFrom: .max, skipping: { _ in false })
        #expect(outcome.refusal == nil)
        #expect(hints("c")?.kept == ColumnsHint.none, "a batch keeps no hint")
        try state.insertOrUpdate(
            "c", fields: [("z", .int(1))], refusingColumnVersionsFrom: .max, reusing: &changes)
        expectCurrent("c", "a single write after the batch")
    }
}
