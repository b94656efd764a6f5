import LogbookViews

/// Realistic Seattle drawbridge feed rows (SODA shape, every value a string), seeded.
///
/// The traits it reproduces: the seven bridges the feed reports, with the coordinates the feed
/// gives them (facts from the City of Seattle's dataset gm8h-9449 as quoted in the Bridget
/// app); Fremont the busiest; fewer openings on weekdays 7–9 and 16–18, when Seattle
/// restricts openings; about 4,500 rows a year; some openings reported as several rows (a
/// sensor records one opening as several open/close events); a few rows with no close.
public struct DrawbridgeFeedGenerator {
    struct Bridge {
        var id: Int
        var name: String
        var latitude: String
        var longitude: String
        /// Relative share of the openings.
        var weight: Double
    }

    static let bridges = [
        Bridge(
            id: 1, name: "1st Ave South", latitude: "47.542213439941406",
            longitude: "-122.33446502685547", weight: 0.8),
        Bridge(
            id: 2, name: "Ballard", latitude: "47.65981674194336", longitude: "-122.37619018554688",
            weight: 1.6),
        Bridge(
            id: 3, name: "Fremont", latitude: "47.64760208129883", longitude: "-122.3497314453125",
            weight: 3.0),
        Bridge(
            id: 4, name: "Montlake", latitude: "47.64728546142578", longitude: "-122.3045883178711",
            weight: 1.2),
        Bridge(
            id: 6, name: "Lower Spokane St", latitude: "47.57137680053711",
            longitude: "-122.35354614257812", weight: 0.9),
        Bridge(
            id: 21, name: "University", latitude: "47.652652740478516",
            longitude: "-122.32042694091797", weight: 1.3),
        Bridge(
            id: 29, name: "South Park", latitude: "47.52923583984375",
            longitude: "-122.31411743164062", weight: 0.6),
    ]

    /// Openings per year across all bridges, before splits (each split adds a row).
    public static let openingsPerYear = 4300

    var random: SeededGenerator

    /// A generator whose rows follow from `seed` alone.
    public init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// Rows for `years` years starting on 1 January of `firstYear`, in time order.
    public mutating func rows(years: Int, firstYear: Int = 2023) -> [[String: String]] {
        precondition(years > 0, "years must be positive")
        let start = WallClockTime(year: firstYear, month: 1, day: 1).dayNumber
        let end = WallClockTime(year: firstYear + years, month: 1, day: 1).dayNumber
        let totalWeight = Self.bridges.reduce(0) { $0 + $1.weight }
        var rows: [[String: String]] = []
        let target = Self.openingsPerYear * years
        var produced = 0
        while produced < target {
            let day = Int.random(in: start..<end, using: &random)
            let hour = Int.random(in: 0..<24, using: &random)
            let weekday = ((day % 7 + 7) % 7 + 4) % 7 + 1
            let isRushHour =
                (2...6).contains(weekday) && ((7...9).contains(hour) || (16...18).contains(hour))
            if isRushHour && random.chance(0.85) { continue }  // restricted: most are not allowed
            if (0...5).contains(hour) && random.chance(0.6) { continue }  // quiet nights
            var pick = Double.random(in: 0..<totalWeight, using: &random)
            var bridge = Self.bridges[0]
            for candidate in Self.bridges {
                pick -= candidate.weight
                if pick < 0 {
                    bridge = candidate
                    break
                }
            }
            var minute = day * 1440 + hour * 60 + Int.random(in: 0..<60, using: &random)
            let duration =
                Int.random(in: 2...9, using: &random)
                + (random.chance(0.08) ? Int.random(in: 10...40, using: &random) : 0)
            let pieces = random.chance(0.05) ? Int.random(in: 2...3, using: &random) : 1
            for piece in 0..<pieces {
                let length = max(1, duration / pieces)
                let stillOpen = piece == pieces - 1 && random.chance(0.004)
                rows.append(row(bridge, openMinute: minute, length: length, stillOpen: stillOpen))
                minute += length + 1
            }
            produced += 1
        }
        return rows.sorted { ($0["opendatetime"] ?? "") < ($1["opendatetime"] ?? "") }
    }

    private func row(_ bridge: Bridge, openMinute: Int, length: Int, stillOpen: Bool) -> [String:
        String]
    {
        var row = [
            "entitytype": "Bridge", "entityname": bridge.name, "entityid": String(bridge.id),
            "opendatetime": Self.time(minute: openMinute).description,
            "latitude": bridge.latitude, "longitude": bridge.longitude,
        ]
        if !stillOpen {
            row["closedatetime"] = Self.time(minute: openMinute + length).description
            row["minutesopen"] = String(length)
        }
        return row
    }

    /// The wall-clock time `minute` minutes after 1970-01-01T00:00 (civil arithmetic).
    public static func time(minute: Int) -> WallClockTime {
        let day = minute / 1440
        // Howard Hinnant's civil_from_days.
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return WallClockTime(
            year: year, month: month, day: dayOfMonth, hour: (minute % 1440) / 60,
            minute: minute % 60)
    }
}
