import Foundation
import Logbook
import LogbookCRDT

/// A secondary index of one model type on chosen columns, kept by the Logbook as a view:
/// register it in `LogbookOptions.views`, and query it with `Logbook.query(_:_:order:limit:
/// after:)`.
///
/// ```swift
/// let byConversation = ModelIndex(Message.self, on: ["conversation", "sentAt"])
/// options.views = [byConversation]
/// let newest = try logbook.query(
///     byConversation, .equal("c1"), order: .descending, limit: 50)
/// ```
///
/// Every live record of the type has one entry, ordered by its key columns' values in turn
/// (`IndexKeyEncoding`: absent first, then null, booleans, integers, doubles, strings by UTF-8),
/// then by record id. Kept as the views are: each accepted change moves at most its record's
/// entry, O(log n); rebuilt by replay on open, or restored from a checkpoint
/// (`LogbookOptions.viewCheckpoints`), equal either way.
public final class ModelIndex<Model: LogbookModel>: CheckpointableView, @unchecked Sendable {
    // @unchecked: `entries` and `records` are guarded by `lock`; the Logbook applies changes
    // under its own lock and queries read from any thread.
    /// The view's name: the model's prefix and the columns, unless one was given.
    public let name: String
    /// The key columns, in order: coding keys of the model's stored properties.
    public var columns: [String] { columnList.names }
    /// See `MaterializedView`: the index's state is its own.
    public var replaysIndependently: Bool { true }

    let columnList: ModelColumnList
    /// `Model.recordPrefix`, asked once.
    let prefix: String
    let lock = NSLock()
    var entries = SortedKeys()
    /// Each indexed record's key column values (nil: absent) and its key.
    var records: [String: (values: [Value?], key: [UInt8])] = [:]

    /// An index of `type`'s records on `columns` (coding keys, in key order); `name` must
    /// be unique among the Logbook's views.
    public init(_ type: Model.Type, name: String? = nil, on columns: [String]) {
        self.name = name ?? "index \(Model.recordPrefix)(\(columns.joined(separator: ",")))"
        self.columnList = ModelColumnList(columns)
        self.prefix = Model.recordPrefix
    }

    /// See `MaterializedView`.
    public func reset() {
        lock.lock()
        defer { lock.unlock() }
        entries = SortedKeys()
        records = [:]
    }

    /// See `MaterializedView`: moves the change's record's entry when a key column changed,
    /// adds it for a new record, removes it for a deleted one.
    public func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        guard change.recordId.hasPrefix(prefix) else { return }
        lock.lock()
        defer { lock.unlock() }
        let recordId = change.recordId
        guard let column = change.colName else {
            if let removed = records.removeValue(forKey: recordId) { entries.remove(removed.key) }
            return
        }
        guard let known = records[recordId] else {
            var values = [Value?](repeating: nil, count: columns.count)
            setValue(change.value, ofColumn: column, in: &values)
            let key = IndexKeyEncoding.key(values, recordId: recordId)
            records[recordId] = (values, key)
            entries.insert(IndexEntry(key: key, recordId: recordId))
            return
        }
        var values = known.values
        guard setValue(change.value, ofColumn: column, in: &values) else { return }
        let key = IndexKeyEncoding.key(values, recordId: recordId)
        entries.remove(known.key)
        entries.insert(IndexEntry(key: key, recordId: recordId))
        records[recordId] = (values, key)
    }

    /// See `MaterializedView`: a hash of the entries in order.
    public func digest() -> StateDigest {
        lock.lock()
        defer { lock.unlock() }
        var builder = StateDigestBuilder()
        for chunk in entries.chunks {
            for entry in chunk { builder.combine(entry.key) }
        }
        return builder.finalize()
    }

    /// The number of records indexed.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    /// Sets the key column `column`'s value in `values`; false when `column` is no key
    /// column or already held `value`.
    @discardableResult
    private func setValue(_ value: Value?, ofColumn column: String, in values: inout [Value?])
        -> Bool
    {
        guard let position = columnList.positions[column], values[position] != value else {
            return false
        }
        // A column named twice in `columns` is kept in each place.
        for (place, name) in columns.enumerated() where name == column { values[place] = value }
        return true
    }

    /// Up to `limit` entries between `low` (inclusive) and `high` (exclusive), in `order`,
    /// strictly after `cursor` in that order.
    func scan(
        from low: [UInt8], to high: [UInt8], descending: Bool, limit: Int, after cursor: [UInt8]?
    ) -> [IndexEntry] {
        lock.lock()
        defer { lock.unlock() }
        var found: [IndexEntry] = []
        guard limit > 0 else { return found }
        if !descending {
            // The least key above `cursor` is `cursor` followed by a zero byte.
            let start = cursor.map { max(low, $0 + [0], by: IndexKeyEncoding.compare) } ?? low
            var position = entries.firstPosition(notBelow: start)
            while position != entries.end, found.count < limit {
                let entry = entries.entry(at: position)
                guard IndexKeyEncoding.compare(entry.key, high) < 0 else { break }
                found.append(entry)
                position = entries.position(after: position)
            }
        } else {
            let stop = cursor.map { min(high, $0, by: IndexKeyEncoding.compare) } ?? high
            var position = entries.position(before: entries.firstPosition(notBelow: stop))
            while let current = position, found.count < limit {
                let entry = entries.entry(at: current)
                guard IndexKeyEncoding.compare(entry.key, low) >= 0 else { break }
                found.append(entry)
                position = entries.position(before: current)
            }
        }
        return found
    }

    /// The key the record `recordId` has in the index now; nil when it has none.
    func currentKey(of recordId: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return records[recordId]?.key
    }
}

private func max(_ a: [UInt8], _ b: [UInt8], by compare: ([UInt8], [UInt8]) -> Int) -> [UInt8] {
    compare(a, b) >= 0 ? a : b
}

private func min(_ a: [UInt8], _ b: [UInt8], by compare: ([UInt8], [UInt8]) -> Int) -> [UInt8] {
    compare(a, b) <= 0 ? a : b
}
