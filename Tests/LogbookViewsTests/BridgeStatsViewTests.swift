import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

// Drawbridge openings through the Logbook: SODA rows parse by Bridget's rules (the fixture's
// real rows included), wall-clock times are never shifted, statistics follow Bridget's
// definitions, an update that closes the bridge moves the statistics, a deletion removes
// the event, and the view rebuilt by replay has the incremental view's digest.
@Suite struct BridgeStatsViewTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "shared/fixtures/seattle_drawbridge_reference.json")

    private func row(_ id: String = "3", open: String, close: String? = nil, minutes: String? = nil)
        -> [String: String]
    {
        var row = [
            "entitytype": "Bridge", "entityname": "Fremont", "entityid": id, "opendatetime": open,
        ]
        if let close { row["closedatetime"] = close }
        if let minutes { row["minutesopen"] = minutes }
        return row
    }

    private func opening(_ row: [String: String]) throws -> BridgeOpening {
        try BridgeOpening.parse(row).get()
    }

    @Test func wallClockTimesParseWithoutShiftingAndKnowTheirWeekday() throws {
        // 02:30 on 2026-03-08 does not exist in Seattle (DST starts): kept as written anyway.
        let time = try #require(WallClockTime(parsing: "2026-03-08T02:30:00.000"))
        #expect(time.description == "2026-03-08T02:30:00.000")
        #expect(time.weekday == 1)  // Sunday
        #expect(WallClockTime(parsing: "2025-01-03T10:12:00.000")?.weekday == 6)  // Friday
        #expect(WallClockTime(parsing: "2024-02-29T00:00:00")?.day == 29)
        for bad in [
            "2025-02-30T00:00:00.000", "2025-13-01T00:00:00.000", "2025-01-01 10:00:00.000",
            "yesterday", "",
        ] {
            #expect(WallClockTime(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func rowsAreSkippedForTheDocumentedReasons() {
        #expect(
            BridgeOpening.parse(row("x", open: "2025-01-03T10:12:00.000"))
                == .failure(.entityIdNotInteger))
        var noName = row(open: "2025-01-03T10:12:00.000")
        noName["entityname"] = nil
        #expect(BridgeOpening.parse(noName) == .failure(.missingEntityName))
        #expect(BridgeOpening.parse(row(open: "soon")) == .failure(.missingOpenTime))
        var badLatitude = row(open: "2025-01-03T10:12:00.000")
        badLatitude["latitude"] = "north"
        #expect(BridgeOpening.parse(badLatitude) == .failure(.coordinateNotNumber))
    }

    @Test func minutesComeFromTheFieldElseTheTimesElseZero() throws {
        #expect(
            try opening(
                row(open: "2025-01-03T10:12:00.000", close: "2025-01-03T10:20:00.000", minutes: "9")
            ).minutesOpen == 9)
        #expect(
            try opening(row(open: "2025-01-03T10:12:30.000", close: "2025-01-03T10:20:10.000"))
                .minutesOpen == 7)
        let stillOpen = try opening(row(open: "2025-01-03T10:12:00.000", close: ""))
        #expect(stillOpen.closedAt == nil)
        #expect(stillOpen.minutesOpen == 0)
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: fixture.path),
            "needs ../shared/fixtures beside the repository"))
    func theFixturesRealRowsParse() throws {
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any]
        let rows = try #require(json?["sample_rows"] as? [[String: String]])
        let openings = try rows.map { try BridgeOpening.parse($0).get() }
        #expect(openings.map(\.entityId) == [1, 3, 2])
        #expect(openings.map(\.minutesOpen) == [8, 4, 3])
        #expect(openings[2].latitude == nil)
        #expect(openings[1].openedAt.description == "2026-09-23T22:35:00.000")
    }

    @Test func statisticsFollowBridgetsDefinitions() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let view = BridgeStatsView()
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = [view]
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        // Fridays at 10: Fremont three times, Ballard once; one Fremont opening still open.
        let rows = [
            row("3", open: "2025-01-03T10:12:00.000", close: "2025-01-03T10:20:00.000"),
            row("3", open: "2025-01-10T10:40:00.000", close: "2025-01-10T10:44:00.000"),
            row("3", open: "2025-01-17T10:05:00.000"),
            [
                "entitytype": "Bridge", "entityname": "Ballard", "entityid": "2",
                "opendatetime": "2025-01-24T10:01:00.000", "minutesopen": "75",
            ],
        ]
        for (number, row) in rows.enumerated() {
            try await logbook.insertOrUpdate(
                "bridge_event/\(number)", fields: try opening(row).fields)
        }
        let summaries = view.summaries()
        #expect(summaries.map(\.entityId) == [2, 3])
        #expect(summaries[1].openings == 3)
        #expect(summaries[1].longestMinutes == 8)
        #expect(summaries[1].averageMinutes == 4)
        #expect(summaries[1].currentlyOpen == 1)
        let buckets = view.buckets()
        let fremont = try #require(buckets.first { $0.key.entityId == 3 })
        #expect(fremont.key == .init(entityId: 3, year: 2025, month: 1, weekday: 6, hour: 10))
        #expect(fremont.count == 3)
        #expect(fremont.probability == 0.75)
        #expect(fremont.confidence == 0.3)
        #expect(fremont.shortestMinutes == 0)
        #expect(BridgeStatsView.probabilityLabel(fremont.probability) == "High")
        #expect(BridgeStatsView.confidenceLabel(fremont.confidence) == "Medium")
        #expect(BridgeStatsView.durationLabel(minutes: 0.5) == "< 1 minute")
        #expect(BridgeStatsView.durationLabel(minutes: 42) == "42 min")
        #expect(BridgeStatsView.durationLabel(minutes: 75) == "1h 15m")

        // The open Fremont event closes: its minutes move into the statistics.
        try await logbook.insertOrUpdate(
            "bridge_event/2",
            fields: [("closedatetime", "2025-01-17T10:17:00.000"), ("minutesopen", 12)])
        #expect(view.summaries()[1].longestMinutes == 12)
        #expect(view.summaries()[1].currentlyOpen == 0)
        // A deleted event leaves them.
        try await logbook.deleteRecord("bridge_event/3")
        #expect(view.summaries().map(\.entityId) == [3])
        let digest = view.digest()
        try logbook.close()

        let rebuilt = BridgeStatsView()
        options.views = [rebuilt]
        let reopened = try Logbook.open(directory: directory.path, options: options)
        #expect(rebuilt.digest() == digest)
        #expect(rebuilt.summaries() == view.summaries())
        try reopened.close()
    }
}
