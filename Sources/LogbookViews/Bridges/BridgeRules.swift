/// Bridget's per-event rules: impact severity, validation of raw SODA rows, and the
/// events-per-day rate.
public enum BridgeRules {
    /// The bridge ids the Seattle feed reports.
    public static let knownBridgeIds: Set<Int64> = [1, 2, 3, 4, 6, 21, 29]
    /// Open dates outside this range are rejected. Bridget's own bound is not published; the
    /// feed starts in the 2010s, so this admits every real row and rejects garbage years.
    public static let openDateRange =
        WallClockTime(year: 2000, month: 1, day: 1)..<WallClockTime(year: 2100, month: 1, day: 1)

    /// Severity 0 (minimal) … 4 (severe): from minutes open (< 5: 0, < 15: 1, < 30: 2,
    /// < 60: 3, else 4); +1 in the rush hours 7–9 and 17–19 (capped at 4); −1 on Saturday
    /// or Sunday when above 0; +1 for Fremont (name contains "fremont", any case) when below 4.
    public static func impactSeverity(of opening: BridgeOpening) -> Int {
        let minutes = opening.minutesOpen
        var severity = minutes < 5 ? 0 : minutes < 15 ? 1 : minutes < 30 ? 2 : minutes < 60 ? 3 : 4
        let hour = opening.openedAt.hour
        if (7...9).contains(hour) || (17...19).contains(hour) { severity = min(4, severity + 1) }
        let weekday = opening.openedAt.weekday
        if (weekday == 1 || weekday == 7) && severity > 0 { severity -= 1 }
        if opening.entityName.lowercased().contains("fremont") && severity < 4 { severity += 1 }
        return severity
    }

    /// Why a raw row fails validation; the first failing rule wins.
    public enum ValidationFailure: String, Error, Sendable, CaseIterable {
        case emptyEntityId = "empty entity id"
        case emptyName = "empty name"
        case unknownBridgeId = "unknown bridge id"
        case malformedOpenDate = "malformed open date"
        case openDateOutOfRange = "open date out of range"
        case malformedCloseDate = "malformed close date"
        case closeNotAfterOpen = "close is not after open"
        case latitudeOutOfRange = "latitude outside ±90"
        case longitudeOutOfRange = "longitude outside ±180"
        case negativeMinutes = "negative minutes open"
        case minutesDisagree = "minutes open differ from the times by more than 1"
    }

    /// Validates a raw SODA row in Bridget's order; nil when it passes.
    public static func validate(_ row: [String: String]) -> ValidationFailure? {
        guard let idText = row["entityid"], !idText.isEmpty else { return .emptyEntityId }
        guard let name = row["entityname"], !name.isEmpty else { return .emptyName }
        guard let id = Int64(idText), knownBridgeIds.contains(id) else { return .unknownBridgeId }
        guard let openText = row["opendatetime"], let openedAt = WallClockTime(parsing: openText)
        else {
            return .malformedOpenDate
        }
        guard openDateRange.contains(openedAt) else { return .openDateOutOfRange }
        var closedAt: WallClockTime?
        if let closeText = row["closedatetime"], !closeText.isEmpty {
            guard let parsed = WallClockTime(parsing: closeText) else { return .malformedCloseDate }
            guard openedAt < parsed else { return .closeNotAfterOpen }
            closedAt = parsed
        }
        if let text = row["latitude"], let latitude = Double(text), abs(latitude) > 90 {
            return .latitudeOutOfRange
        }
        if let text = row["longitude"], let longitude = Double(text), abs(longitude) > 180 {
            return .longitudeOutOfRange
        }
        if let text = row["minutesopen"], let minutes = Int64(text) {
            guard minutes >= 0 else { return .negativeMinutes }
            if let closedAt, abs(minutes - Int64(openedAt.wholeMinutes(until: closedAt))) > 1 {
                return .minutesDisagree
            }
        }
        return nil
    }

    /// Openings per day: count ÷ max(1, whole days between the earliest and latest opening).
    public static func eventsPerDay(_ openings: some Collection<BridgeOpening>) -> Double {
        guard let earliest = openings.map(\.openedAt).min(),
            let latest = openings.map(\.openedAt).max()
        else { return 0 }
        let days = (latest.secondNumber - earliest.secondNumber) / 86_400
        return Double(openings.count) / Double(max(1, days))
    }
}
