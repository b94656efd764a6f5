import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

// The importers write in batches and say what they could not write: a re-import onto a
// record deleted here is counted (crdt-lite never revives it), not skipped in silence.
@Suite struct ImporterTests {
    static func rows(_ count: Int) -> [[String: String]] {
        (0..<count).map { index in
            let minute = String(format: "%02d", index % 60)
            let hour = String(format: "%02d", (index / 60) % 24)
            let day = String(format: "%02d", 1 + index / 1440)
            return [
                "entitytype": "Bridge", "entityname": "Fremont", "entityid": "3",
                "opendatetime": "2025-01-\(day)T\(hour):\(minute):00.000",
                "closedatetime": "2025-01-\(day)T\(hour):\(minute):30.000", "minutesopen": "1",
            ]
        }
    }

    @Test func bridgeRowsGoInBatchesAndADeletedOpeningIsCounted() async throws {
        try await withTemporaryLogbook { logbook in
            let rows = Self.rows(2_500)
            nonisolated(unsafe) var heard: [Int] = []
            let first = try await logbook.importBridgeRows(rows) { done, _ in heard.append(done) }
            #expect(first.imported == 2_500 && first.skipped.isEmpty)
            #expect(heard == [1_000, 2_000, 2_500])
            let gone = BridgeStatsView.recordPrefix + "3-2025-01-01T00:07:00.000"
            #expect(logbook.getRecord(gone) != nil)
            try await logbook.deleteRecord(gone)
            var again = rows
            again[0]["minutesopen"] = "2"
            let second = try await logbook.importBridgeRows(again + [["entityid": "x"]])
            #expect(second.imported == 2_499)
            #expect(second.skipped == [.deletedRecord: 1, .entityIdNotInteger: 1])
            #expect(logbook.isTombstoned(gone))
            let updated = BridgeStatsView.recordPrefix + "3-2025-01-01T00:00:00.000"
            #expect(logbook.getRecord(updated)?.field("minutesopen") == .int(2))
        }
    }

    @Test func aGoodiesReimportNamesTheRecordsDeletedHere() async throws {
        try await withTemporaryLogbook { logbook in
            let document = try GoodiesDocument(
                parsing: Array(
                    #"""
                    {"entities": [
                      {"id": "home", "entity_type": "home", "name": "Home"},
                      {"id": "lamp", "entity_type": "device", "name": "Lamp"}],
                     "relationships": [
                      {"id": "r1", "from_entity_id": "lamp", "to_entity_id": "home",
                       "relationship_type": "located_in"}]}
                    """#.utf8))
            #expect(try await logbook.importGoodies(document) == (3, []))
            try await logbook.deleteRecord("entity/lamp")
            let again = try await logbook.importGoodies(document)
            #expect(again.written == 2 && again.deleted == ["entity/lamp"])
        }
    }

    func withTemporaryLogbook(_ body: (Logbook) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await body(logbook)
        try logbook.close()
    }
}
