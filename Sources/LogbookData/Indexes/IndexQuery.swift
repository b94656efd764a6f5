import Foundation
import LogbookCRDT

/// Which entries of a `ModelIndex` a query reads: equal values for the first key columns,
/// then, on the next column, a range or a string prefix.
///
/// ```swift
/// .equal("c1")                                    // conversation == "c1"
/// .equal("c1").from(.date(monday)).before(.date(tuesday))   // and Monday <= sentAt < Tuesday
/// .prefix("lamp")                                 // first column begins with "lamp"
/// .all                                            // every entry
/// ```
///
/// Values compare as stored (`Value`): a `Date` property is `.double` seconds since 2001
/// (`Value.date(_:)`), a UUID its uppercase string. A range over values of another kind
/// than the column's finds what lies between them in the index's order, usually nothing.
public struct IndexQuery: Sendable, Equatable {
    /// Values the first key columns equal, in order.
    public var equal: [Value]
    /// The next column's lower bound, and whether it is included.
    public var lower: Bound?
    /// The next column's upper bound, and whether it is included.
    public var upper: Bound?
    /// A prefix the next column's string begins with.
    public var prefix: String?

    /// One end of a range.
    public struct Bound: Sendable, Equatable {
        /// The value at the end.
        public var value: Value
        /// Whether the value itself is in the range.
        public var isIncluded: Bool
    }

    /// Every entry.
    public static let all = IndexQuery(equal: [])

    /// Entries whose first key columns equal `values`.
    public static func equal(_ values: Value...) -> IndexQuery { IndexQuery(equal: values) }

    /// Entries whose first key column's string begins with `prefix`.
    public static func prefix(_ prefix: String) -> IndexQuery { IndexQuery.all.prefix(prefix) }

    /// Entries whose first key column is at least `value`.
    public static func from(_ value: Value) -> IndexQuery { IndexQuery.all.from(value) }

    /// Entries whose first key column is above `value`.
    public static func after(_ value: Value) -> IndexQuery { IndexQuery.all.after(value) }

    /// Entries whose first key column is at most `value`.
    public static func through(_ value: Value) -> IndexQuery { IndexQuery.all.through(value) }

    /// Entries whose first key column is below `value`.
    public static func before(_ value: Value) -> IndexQuery { IndexQuery.all.before(value) }

    /// Also: the column after the equal ones is at least `value`.
    public func from(_ value: Value) -> IndexQuery {
        with { $0.lower = Bound(value: value, isIncluded: true) }
    }

    /// Also: the column after the equal ones is above `value`.
    public func after(_ value: Value) -> IndexQuery {
        with { $0.lower = Bound(value: value, isIncluded: false) }
    }

    /// Also: the column after the equal ones is at most `value`.
    public func through(_ value: Value) -> IndexQuery {
        with { $0.upper = Bound(value: value, isIncluded: true) }
    }

    /// Also: the column after the equal ones is below `value`.
    public func before(_ value: Value) -> IndexQuery {
        with { $0.upper = Bound(value: value, isIncluded: false) }
    }

    /// Also: the column after the equal ones is a string beginning with `prefix`.
    public func prefix(_ prefix: String) -> IndexQuery { with { $0.prefix = prefix } }

    private func with(_ change: (inout IndexQuery) -> Void) -> IndexQuery {
        var query = self
        change(&query)
        return query
    }

    /// Why the query cannot be asked of an index on `columns`; nil when it can.
    func reasonToRefuse(columns: [String]) -> String? {
        let ranged = lower != nil || upper != nil
        if ranged, prefix != nil { return "a query takes a range or a prefix, not both" }
        let needed = equal.count + (ranged || prefix != nil ? 1 : 0)
        guard needed <= columns.count else {
            return "the query names \(needed) key columns; the index has \(columns.count) "
                + "(\(columns.joined(separator: ", ")))"
        }
        return nil
    }

    /// The keys it reads: from `low` (included) to `high` (not included).
    func keyRange() -> (low: [UInt8], high: [UInt8]) {
        var equalPart: [UInt8] = []
        for value in equal { IndexKeyEncoding.append(value, to: &equalPart) }
        if let prefix {
            var low = equalPart
            IndexKeyEncoding.appendStringPrefix(prefix, to: &low)
            return (low, low + [IndexKeyEncoding.afterEveryTag])
        }
        // A key whose column equals a bound's value begins with the bound's bytes, and is
        // followed by bytes below `afterEveryTag`.
        var low = equalPart
        if let lower {
            IndexKeyEncoding.append(lower.value, to: &low)
            if !lower.isIncluded { low.append(IndexKeyEncoding.afterEveryTag) }
        }
        var high = equalPart
        if let upper {
            IndexKeyEncoding.append(upper.value, to: &high)
            if upper.isIncluded { high.append(IndexKeyEncoding.afterEveryTag) }
        } else {
            high.append(IndexKeyEncoding.afterEveryTag)
        }
        return (low, high)
    }
}

extension Value {
    /// A `Date` as a model stores it: seconds since 2001-01-01 UTC, as `.double`.
    public static func date(_ date: Date) -> Value { .double(date.timeIntervalSinceReferenceDate) }
}
