import Logbook
import LogbookCRDT

/// The index's records and their key column values as a checkpoint; the entries are made
/// again from them on restore.
extension ModelIndex {
    /// See `CheckpointableView`: the key columns, then each record in key order with its
    /// key column values (absent ones marked, `write(_: Value?)`).
    public func checkpointState() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var writer = CheckpointWriter()
        columnList.write(to: &writer)
        writer.write(UInt64(entries.count))
        for chunk in entries.chunks {
            for entry in chunk {
                writer.write(entry.recordId)
                for value in records[entry.recordId]?.values ?? [] { writer.write(value) }
            }
        }
        return writer.bytes
    }

    /// See `CheckpointableView`: refuses a state taken on other columns, a record held
    /// twice or out of order, or one outside the model's prefix.
    public func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        try columnList.readAndCheck(from: &reader, role: "key")
        var restored: [String: (values: [Value?], key: [UInt8])] = [:]
        var sorted: [IndexEntry] = []
        var recordIds: Set<String> = []
        for _ in 0..<(try reader.readCount()) {
            let recordId = try reader.readDistinctString(&recordIds)
            var values: [Value?] = []
            for _ in columns { values.append(try reader.readOptionalValue()) }
            let key = IndexKeyEncoding.key(values, recordId: recordId)
            guard recordId.hasPrefix(Model.recordPrefix),
                sorted.last.map({ IndexKeyEncoding.compare($0.key, key) < 0 }) ?? true
            else {
                throw reader.malformed(expected: "records of \(Model.recordPrefix) in key order")
            }
            sorted.append(IndexEntry(key: key, recordId: recordId))
            restored[recordId] = (values, key)
        }
        try reader.expectEnd()
        lock.lock()
        defer { lock.unlock() }
        entries.replace(withSorted: sorted)
        records = restored
    }
}
