import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// The door a client's versions pass (docs/decisions/0014): a crdt-lite client follows every
// `dbVersion` it pulls and writes a column at one past the `colVersion` it holds, so a node
// that admitted 2^63 − 1 left every client that pulled it making versions nobody takes.
// A replica now refuses from clients what its clock would not follow fully (2^62, or 2^32
// past its clock), and follows fully what it admits: whoever pulled the highest admitted
// version can make 2^32 more that are admitted. Peers' logs are merged past the door and
// followed only by the lead.
@Suite struct ClientVersionDoorTests {
    typealias StringChange = Change<String, String, Value>

    static let floor = LogicalClock.followFloor
    static let lead = LogicalClock.followLead

    private func change(
        _ recordId: String = "e/x", colVersion: UInt64 = 1, dbVersion: UInt64, nodeId: UInt64 = 9
    ) -> StringChange {
        StringChange(
            recordId: recordId, colName: "n", value: .string("X"), colVersion: colVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: 1)
    }

    static let refusedVersions: [UInt64] = [
        ChangeLimits.versionMax, ChangeLimits.versionMax - 1, floor + lead + 1,
        ChangeLimits.versionMax - lead,
    ]

    @Test(arguments: refusedVersions)
    func aDbVersionAClientCouldNotFollowIsRefused(version: UInt64) async throws {
        try await withReopenCheckedLogbook { logbook in
            try await logbook.insertOrUpdate("e/a", fields: [("n", 1)])
            let before = (logbook.stateDigest(), logbook.clock(), logbook.nextOffset)
            do throws(LogbookError) {
                try await logbook.merge([change("e/ok", dbVersion: 3), change(dbVersion: version)])
                Issue.record("dbVersion \(version) was admitted from a client")
            } catch {
                #expect(error.code == .invalidChange)
                #expect(error.changeIndex == 1)
                #expect(error.message.contains("dbVersion \(version) is past"), "\(error)")
                #expect(error.message.contains("2^32 past its clock"), "\(error)")
            }
            #expect(logbook.stateDigest() == before.0, "nothing of the batch was merged")
            #expect(logbook.clock() == before.1)
            #expect(logbook.nextOffset == before.2, "nothing was logged")
            try await logbook.insertOrUpdate("e/a", fields: [("n", 2)])
        }
    }

    @Test(arguments: refusedVersions)
    func aColumnVersionAClientCouldNotWriteOverIsRefused(version: UInt64) async throws {
        try await withReopenCheckedLogbook { logbook in
            do throws(LogbookError) {
                try await logbook.merge([change(colVersion: version, dbVersion: 2)])
                Issue.record("colVersion \(version) was admitted from a client")
            } catch {
                #expect(error.code == .invalidChange)
                #expect(error.message.contains("colVersion \(version) is past"), "\(error)")
            }
            #expect(logbook.records().isEmpty)
            try await logbook.insertOrUpdate("e/x", fields: [("n", 2)])
        }
    }

    @Test func aClientThatPulledTheHighestAdmittedVersionsCanStillPush() async throws {
        try await withReopenCheckedLogbook { logbook in
            let limit = ChangeLimits.clientVersionMax(clock: logbook.clock().currentTime())
            #expect(limit == Self.floor + Self.lead)
            try await logbook.merge([change(colVersion: limit, dbVersion: limit)])
            #expect(logbook.clock().currentTime() == limit + 1, "the clock followed it fully")
            // A crdt-lite client pulls it, writes the column 1,000 times offline and pushes:
            // every version it made is admitted.
            let client = CRDT<String, String, Value>(nodeId: 7)
            client.mergeChanges(logbook.getChangesSince(0))
            var written: [StringChange] = []
            for round in 0..<1_000 {
                written += client.insertOrUpdate("e/x", fields: [("n", .int(Int64(round)))])
            }
            #expect(written.last?.colVersion == limit + 1_000)
            #expect(try await logbook.merge(written).count == written.count)
            #expect(logbook.getRecord("e/x")?.field("n") == .int(999))
            // And the node writes the column too.
            let own = try await logbook.insertOrUpdate("e/x", fields: [("n", "mine")])
            #expect(own.first?.colVersion == limit + 1_001)
        }
    }

    @Test func eachAdmittedBatchMovesTheClockAtMostTheLeadPastItsFollowLimit() async throws {
        try await withReopenCheckedLogbook { logbook in
            for round in 0..<4 {
                let clock = logbook.clock().currentTime()
                let limit = ChangeLimits.clientVersionMax(clock: clock)
                let batch = (0..<3).map { change("e/\(round)-\($0)", dbVersion: limit) }
                try await logbook.merge(batch)
                #expect(logbook.clock().currentTime() == limit + 3)
                #expect(limit <= max(clock, Self.floor) + Self.lead)
            }
        }
    }

    @Test func aPeersLogIsMergedPastTheDoorAndFollowedOnlyByTheLead() async throws {
        try await withReopenCheckedLogbook { logbook in
            let merged = try await logbook.mergeLocated(
                [change(colVersion: 5, dbVersion: ChangeLimits.versionMax)], from: .peer)
            #expect(merged.acceptedCount == 1)
            #expect(logbook.clock().currentTime() == Self.floor + Self.lead + 1)
            try await logbook.insertOrUpdate("e/x", fields: [("n", "mine")])
            #expect(logbook.getRecord("e/x")?.field("n") == "mine")
        }
    }

    @Test func theDoorNeverAdmitsVersionsWithinTheLeadOfTheTop() {
        let top = ChangeLimits.clientVersionMax(clock: ChangeLimits.versionMax - 10)
        #expect(top == ChangeLimits.versionMax - Self.lead)
    }
}
