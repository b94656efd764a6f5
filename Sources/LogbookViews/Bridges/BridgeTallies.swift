/// Figures computed over stored openings for reports (what `logbook bridges validate` and
/// `heatmap` print), here rather than in the CLI so a program gets the same numbers.
public enum BridgeTallies {
    /// Openings that fail Bridget's validation, by rule, with their record ids (sorted).
    public struct Validation: Sendable, Equatable {
        /// How many openings were checked.
        public var openings: Int
        /// Record ids per failed rule, each list sorted.
        public var failures: [BridgeRules.ValidationFailure: [String]]
        /// Openings that failed some rule.
        public var failed: Int { failures.values.reduce(0) { $0 + $1.count } }
        /// Openings that passed every rule.
        public var valid: Int { openings - failed }
    }

    /// Checks every opening with `BridgeRules.validate`.
    public static func validation(of openings: [String: BridgeOpening]) -> Validation {
        var failures: [BridgeRules.ValidationFailure: [String]] = [:]
        for (recordId, opening) in openings {
            if let failure = BridgeRules.validate(opening.sodaRow) {
                failures[failure, default: []].append(recordId)
            }
        }
        for key in failures.keys { failures[key]?.sort() }
        return Validation(openings: openings.count, failures: failures)
    }

    /// Openings per (weekday 0 = Sunday ... 6, hour 0 ... 23) of their opening time.
    public static func weekdayHourCounts(of openings: [BridgeOpening]) -> [[Int]] {
        var counts = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
        for opening in openings {
            let weekday = opening.openedAt.weekday - 1
            let hour = opening.openedAt.hour
            guard (0..<7).contains(weekday), (0..<24).contains(hour) else { continue }
            counts[weekday][hour] += 1
        }
        return counts
    }
}
