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
    static let fixture = HomeLogbook.fixtures.appendingPathComponent(
        "seattle_drawbridge_reference.json")

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

    @Test func theFixturesRealRowsParse() throws {
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
        // Friday 10:00: only Fremont is left (Ballard's opening was deleted), three openings.
        let friday = view.predict(weekday: 6, hour: 10)
        #expect(friday.map(\.entityId) == [3])
        #expect(friday.first?.openings == 3)
        #expect(friday.first?.probability == 1)
        #expect(friday.first?.confidence == 0.3)
        #expect(friday.first?.averageMinutes == 8)  // 8, 4 and 12
        #expect(view.predict(weekday: 2, hour: 10).allSatisfy { $0.probability == 0 })
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

// Bridget's per-event rules: severity, validation order, events per day.
@Suite struct BridgeRulesTests {
    private func opening(minutes: Int64, at time: String, name: String = "Ballard") throws
        -> BridgeOpening
    {
        BridgeOpening(
            entityType: "Bridge", entityName: name, entityId: 2,
            openedAt: try #require(WallClockTime(parsing: time)),
            closedAt: nil, minutesOpen: minutes, latitude: nil, longitude: nil)
    }

    @Test(
        arguments: [
            // minutes, time (2025-01-06 is a Monday, 2025-01-04 a Saturday), name, severity
            (Int64(4), "2025-01-06T12:00:00.000", "Ballard", 0),
            (14, "2025-01-06T12:00:00.000", "Ballard", 1),
            (29, "2025-01-06T12:00:00.000", "Ballard", 2),
            (59, "2025-01-06T12:00:00.000", "Ballard", 3),
            (60, "2025-01-06T12:00:00.000", "Ballard", 4),
            (14, "2025-01-06T08:00:00.000", "Ballard", 2),  // rush hour
            (60, "2025-01-06T17:30:00.000", "Ballard", 4),  // capped
            (14, "2025-01-04T12:00:00.000", "Ballard", 0),  // weekend
            (4, "2025-01-04T12:00:00.000", "Ballard", 0),  // weekend, already 0
            (14, "2025-01-06T12:00:00.000", "Fremont", 2),
            (60, "2025-01-06T12:00:00.000", "FREMONT", 4),  // already 4
        ] as [(Int64, String, String, Int)])
    func impactSeverityFollowsTheRules(minutes: Int64, time: String, name: String, severity: Int)
        throws
    {
        #expect(
            BridgeRules.impactSeverity(of: try opening(minutes: minutes, at: time, name: name))
                == severity)
    }

    @Test func validationReportsTheFirstFailingRule() {
        let good = [
            "entityid": "3", "entityname": "Fremont", "opendatetime": "2025-01-03T10:12:00.000",
            "closedatetime": "2025-01-03T10:20:00.000", "minutesopen": "8", "latitude": "47.6",
            "longitude": "-122.3",
        ]
        #expect(BridgeRules.validate(good) == nil)
        func with(_ key: String, _ value: String?) -> [String: String] {
            var row = good
            row[key] = value
            return row
        }
        #expect(BridgeRules.validate(with("entityid", "")) == .emptyEntityId)
        #expect(BridgeRules.validate(with("entityname", "")) == .emptyName)
        #expect(BridgeRules.validate(with("entityid", "5")) == .unknownBridgeId)
        #expect(BridgeRules.validate(with("opendatetime", "2025-01-03")) == .malformedOpenDate)
        #expect(
            BridgeRules.validate(with("opendatetime", "1999-12-31T23:00:00.000"))
                == .openDateOutOfRange)
        #expect(BridgeRules.validate(with("closedatetime", "later")) == .malformedCloseDate)
        #expect(
            BridgeRules.validate(with("closedatetime", "2025-01-03T10:12:00.000"))
                == .closeNotAfterOpen)
        #expect(BridgeRules.validate(with("latitude", "91")) == .latitudeOutOfRange)
        #expect(BridgeRules.validate(with("longitude", "-181")) == .longitudeOutOfRange)
        #expect(BridgeRules.validate(with("minutesopen", "-1")) == .negativeMinutes)
        #expect(BridgeRules.validate(with("minutesopen", "10")) == .minutesDisagree)
        #expect(BridgeRules.validate(with("minutesopen", "9")) == nil)  // within 1
        var twoFailures = with("entityname", "")
        twoFailures["entityid"] = "99"
        #expect(BridgeRules.validate(twoFailures) == .emptyName)
    }

    @Test func anOpeningRoundTripsThroughItsSODARowAndItsRecordFields() throws {
        var original = try opening(minutes: 12, at: "2025-01-06T08:00:00.000", name: "Fremont")
        original.closedAt = WallClockTime(parsing: "2025-01-06T08:12:00.000")
        original.latitude = 47.64760208129883
        #expect(BridgeOpening.parse(original.sodaRow) == .success(original))
        let fields = Dictionary(uniqueKeysWithValues: original.fields)
        #expect(BridgeOpening(fields: fields) == original)
    }

    @Test func eventsPerDayDividesByWholeDaysAtLeastOne() throws {
        let sameDay = [
            try opening(minutes: 1, at: "2025-01-06T01:00:00.000"),
            try opening(minutes: 1, at: "2025-01-06T23:00:00.000"),
        ]
        #expect(BridgeRules.eventsPerDay(sameDay) == 2)
        let tenDays = sameDay + [try opening(minutes: 1, at: "2025-01-16T01:00:00.000")]
        #expect(BridgeRules.eventsPerDay(tenDays) == 0.3)
        #expect(BridgeRules.eventsPerDay([BridgeOpening]()) == 0)
    }
}

// The report figures the CLI prints, computed in the view's library.
extension BridgeStatsViewTests {
    @Test func talliesCountValidationFailuresByRuleAndOpeningsByWeekdayAndHour() throws {
        // 2025-01-03 is a Friday (weekday 6): 10:12 twice, 23:59 once.
        let good = try opening(
            row(open: "2025-01-03T10:12:00.000", close: "2025-01-03T10:20:00.000"))
        let again = try opening(row(open: "2025-01-03T10:40:00.000"))
        let late = try opening(row(open: "2025-01-03T23:59:00.000"))
        // Parsed, but fails validation: the close is not after the open.
        var backwards = good
        backwards.closedAt = WallClockTime(parsing: "2025-01-03T10:00:00.000")
        let openings = ["b": good, "a": again, "c": late, "z": backwards]
        let tally = BridgeTallies.validation(of: openings)
        #expect(tally.openings == 4)
        #expect(tally.failures[.closeNotAfterOpen] == ["z"])
        #expect(tally.valid == 4 - tally.failed)
        let counts = BridgeTallies.weekdayHourCounts(of: [good, again, late])
        #expect(counts[5][10] == 2 && counts[5][23] == 1)
        #expect(counts.flatMap { $0 }.reduce(0, +) == 3)
    }
}
