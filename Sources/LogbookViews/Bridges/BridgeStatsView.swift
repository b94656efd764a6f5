import Foundation
import Logbook
import LogbookCRDT

/// Seattle drawbridge statistics as the Bridget app computes them, kept from the
/// `bridge_event/<id>` records of a Logbook.
///
/// The view keeps each opening's fields from accepted changes (a record deletion removes it,
/// a deleted column is gone, a later `closedatetime` moves the event's statistics);
/// statistics are computed from the current openings when asked.
public final class BridgeStatsView: MaterializedView, @unchecked Sendable {
    // @unchecked: `fields` is guarded by `lock`; the Logbook calls apply/reset under its own
    // lock and readers may be on other threads.
    /// The record ids this view follows start with this.
    public static let recordPrefix = "bridge_event/"
    /// The view's name, or the bridge's.
    public let name = "bridge-stats"
    /// See `MaterializedView`: this view's state is its own, so a replay may apply it on a
    /// thread of its own.
    public var replaysIndependently: Bool { true }
    let lock = NSLock()
    var fields: [String: [String: Value]] = [:]

    /// An empty view; register it in `LogbookOptions.views`.
    public init() {}

    /// See `MaterializedView`.
    public func reset() {
        lock.lock()
        fields = [:]
        lock.unlock()
    }

    /// See `MaterializedView`.
    public func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        guard change.recordId.hasPrefix(Self.recordPrefix) else { return }
        lock.lock()
        defer { lock.unlock() }
        guard let column = change.colName else {
            fields[change.recordId] = nil
            return
        }
        if let value = change.value {
            fields[change.recordId, default: [:]][column] = value
        } else {
            fields[change.recordId]?[column] = nil
        }
    }

    /// The openings the view holds, by record id (records missing a required field are left out).
    public func openings() -> [String: BridgeOpening] {
        lock.lock()
        defer { lock.unlock() }
        return fields.compactMapValues(BridgeOpening.init(fields:))
    }

    /// See `MaterializedView`.
    public func digest() -> StateDigest {
        let replica = CRDT<String, String, Value>(nodeId: 0)
        for (recordId, opening) in openings().sorted(by: { $0.key < $1.key }) {
            replica.insertOrUpdate(recordId, fields: opening.fields.sorted { $0.0 < $1.0 })
        }
        return StateDigest(of: replica)
    }

    // MARK: Statistics

    /// Per bridge: openings, average and longest minutes open, and how many are open now.
    public struct BridgeSummary: Hashable, Sendable {
        /// The bridge id.
        public var entityId: Int64
        /// The view's name, or the bridge's.
        public var name: String
        /// Openings counted.
        public var openings: Int
        /// Average minutes open.
        public var averageMinutes: Double
        /// Longest opening, in minutes.
        public var longestMinutes: Int64
        /// Openings with no close time.
        public var currentlyOpen: Int
    }

    /// One summary per bridge, ordered by bridge id.
    public func summaries() -> [BridgeSummary] {
        var byBridge: [Int64: [BridgeOpening]] = [:]
        for opening in openings().values { byBridge[opening.entityId, default: []].append(opening) }
        return byBridge.keys.sorted().compactMap { id in
            guard let events = byBridge[id], let first = events.first else { return nil }
            let total = events.reduce(0) { $0 + $1.minutesOpen }
            return BridgeSummary(
                entityId: id, name: first.entityName, openings: events.count,
                averageMinutes: Double(total) / Double(events.count),
                longestMinutes: events.map(\.minutesOpen).max() ?? 0,
                currentlyOpen: events.filter { $0.closedAt == nil }.count)
        }
    }

    /// A bucket key: bridge, year, month, weekday (1 = Sunday … 7 = Saturday), hour.
    public struct BucketKey: Hashable, Comparable, Sendable {
        /// The bridge id.
        public var entityId: Int64
        /// The year.
        public var year: Int
        /// The month, 1–12.
        public var month: Int
        /// Weekday, 1 = Sunday … 7 = Saturday.
        public var weekday: Int
        /// The hour, 0–23.
        public var hour: Int

        /// A key from its parts.
        public init(entityId: Int64, year: Int, month: Int, weekday: Int, hour: Int) {
            self.entityId = entityId
            self.year = year
            self.month = month
            self.weekday = weekday
            self.hour = hour
        }

        /// Chronological (or key) order.
        public static func < (lhs: BucketKey, rhs: BucketKey) -> Bool {
            (lhs.entityId, lhs.year, lhs.month, lhs.weekday, lhs.hour)
                < (rhs.entityId, rhs.year, rhs.month, rhs.weekday, rhs.hour)
        }
    }

    /// Openings in one bucket, with the probability and confidence Bridget derives.
    public struct Bucket: Hashable, Sendable {
        /// The bucket.
        public var key: BucketKey
        /// Openings in the bucket.
        public var count: Int
        /// Minutes open, summed.
        public var totalMinutes: Int64
        /// Average minutes open.
        public var averageMinutes: Double
        /// Longest opening, in minutes.
        public var longestMinutes: Int64
        /// Shortest opening, in minutes.
        public var shortestMinutes: Int64
        /// count ÷ the counts of every bucket with the same (weekday, hour), any bridge, year or month.
        public var probability: Double
        /// min(count / 10, 1).
        public var confidence: Double
    }

    /// Every bucket, ordered by key.
    public func buckets() -> [Bucket] {
        var grouped: [BucketKey: [Int64]] = [:]
        for opening in openings().values {
            let time = opening.openedAt
            let key = BucketKey(
                entityId: opening.entityId, year: time.year, month: time.month,
                weekday: time.weekday, hour: time.hour)
            grouped[key, default: []].append(opening.minutesOpen)
        }
        var perSlot: [Int: Int] = [:]  // weekday * 24 + hour
        for (key, minutes) in grouped {
            perSlot[key.weekday * 24 + key.hour, default: 0] += minutes.count
        }
        return grouped.keys.sorted().compactMap { key in
            guard let minutes = grouped[key], let slotTotal = perSlot[key.weekday * 24 + key.hour]
            else { return nil }
            let total = minutes.reduce(0, +)
            return Bucket(
                key: key, count: minutes.count, totalMinutes: total,
                averageMinutes: Double(total) / Double(minutes.count),
                longestMinutes: minutes.max() ?? 0,
                shortestMinutes: minutes.min() ?? 0,
                probability: Double(minutes.count) / Double(slotTotal),
                confidence: min(Double(minutes.count) / 10, 1))
        }
    }

    /// Bridget's probability label: [0, 0.1) Very Low, [0.1, 0.3) Low, [0.3, 0.6) Moderate,
    /// [0.6, 0.8) High, [0.8, 1] Very High.
    public static func probabilityLabel(_ probability: Double) -> String {
        switch probability {
        case ..<0.1: "Very Low"
        case ..<0.3: "Low"
        case ..<0.6: "Moderate"
        case ..<0.8: "High"
        default: "Very High"
        }
    }

    /// Bridget's confidence label: [0, 0.3) Low, [0.3, 0.7) Medium, [0.7, 1] High Confidence.
    public static func confidenceLabel(_ confidence: Double) -> String {
        switch confidence {
        case ..<0.3: "Low"
        case ..<0.7: "Medium"
        default: "High Confidence"
        }
    }

    /// Bridget's duration text: below 1 "< 1 minute", below 60 "N min", else "Hh Mm".
    public static func durationLabel(minutes: Double) -> String {
        if minutes < 1 { return "< 1 minute" }
        if minutes < 60 { return "\(Int(minutes)) min" }
        let whole = Int(minutes)
        return "\(whole / 60)h \(whole % 60)m"
    }
}
