import LogbookCRDT
import LogbookTesting
import Testing

// `ReplicaState`'s local writes with a column-version limit: the engine's write path checks
// and writes in one lookup. A refused write changes nothing, the clock included; below the
// limit the checked write is the plain one.
@Suite struct CheckedLocalWriteTests {
    /// A replica whose `e/x` has column `n` at colVersion `top` (merged from node 2) and
    /// column `m` at 1, and a tombstoned `e/gone`.
    private func replica(top: UInt64) -> ReplicaState {
        let state = ReplicaState(nodeId: 1)
        _ = state.merge([
            change("e/x", "n", .string("theirs"), col: top, db: 10, node: 2),
            change("e/x", "m", .int(1), col: 1, db: 11, node: 2),
            change("e/gone", nil, nil, col: tombstoneColumnVersion, db: 12, node: 2),
        ])
        return state
    }

    @Test func aWriteToAColumnAtTheLimitIsRefusedAndChangesNothing() {
        let state = replica(top: 500)
        let clock = state.getClock().currentTime()
        let before = state.getChangesSince(0)

        #expect(throws: ColumnVersionAtLimit(column: "n", colVersion: 500)) {
            try state.insertOrUpdate(
                "e/x", fields: [("m", .int(2)), ("n", .string("mine"))],
                refusingColumnVersionsFrom: 500)
        }
        // A write of one field takes its own path (one search for the check and the write).
        #expect(throws: ColumnVersionAtLimit(column: "n", colVersion: 500)) {
            try state.insertOrUpdate(
                "e/x", fields: [("n", .string("mine"))], refusingColumnVersionsFrom: 500)
        }
        #expect(throws: ColumnVersionAtLimit(column: "n", colVersion: 500)) {
            try state.deleteField("e/x", fieldName: "n", refusingColumnVersionsFrom: 400)
        }
        #expect(state.getClock().currentTime() == clock)
        #expect(state.getChangesSince(0) == before)
    }

    @Test func belowTheLimitACheckedWriteIsThePlainOne() throws {
        let (checked, plain) = (replica(top: 500), replica(top: 500))
        let written = try checked.insertOrUpdate(
            "e/x", fields: [("n", .string("mine")), ("new", .int(3))],
            refusingColumnVersionsFrom: 501)
        #expect(
            written
                == plain.insertOrUpdate("e/x", fields: [("n", .string("mine")), ("new", .int(3))]))
        #expect(written.first?.colVersion == 501)
        #expect(
            try checked.deleteField("e/x", fieldName: "m", refusingColumnVersionsFrom: 2)
                == plain.deleteField("e/x", fieldName: "m"))
        // A new record has no versions to refuse; a tombstoned one is left alone, with the
        // clock's tick the plain write also takes; an absent field deletes nothing.
        #expect(
            try checked.insertOrUpdate(
                "e/new", fields: [("n", .int(1))], refusingColumnVersionsFrom: 1)
                == plain.insertOrUpdate("e/new", fields: [("n", .int(1))]))
        #expect(
            try checked.insertOrUpdate(
                "e/gone", fields: [("n", .int(1))], refusingColumnVersionsFrom: 1)
                == [])
        #expect(plain.insertOrUpdate("e/gone", fields: [("n", .int(1))]) == [])
        #expect(
            try checked.deleteField("e/x", fieldName: "absent", refusingColumnVersionsFrom: 1)
                == nil)
        // One field (its own path): a deleted column, one the record has, one it has not.
        for column in ["m", "n", "fresh"] {
            #expect(
                try checked.insertOrUpdate(
                    "e/x", fields: [(column, .int(9))], refusingColumnVersionsFrom: 503)
                    == plain.insertOrUpdate("e/x", fields: [(column, .int(9))]))
        }
        #expect(checked.getChangesSince(0) == plain.getChangesSince(0))
        #expect(checked.getClock().currentTime() == plain.getClock().currentTime())
    }
}
