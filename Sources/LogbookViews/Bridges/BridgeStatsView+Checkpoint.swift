import Logbook
import LogbookCRDT

/// The openings' fields as a checkpoint.
extension BridgeStatsView: CheckpointableView {
    /// See `CheckpointableView`.
    public func checkpointState() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var writer = CheckpointWriter()
        writer.write(UInt64(fields.count))
        for (recordId, columns) in fields.sorted(by: { $0.key < $1.key }) {
            writer.write(recordId)
            writer.write(UInt64(columns.count))
            for (column, value) in columns.sorted(by: { $0.key < $1.key }) {
                writer.write(column)
                writer.write(value)
            }
        }
        return writer.bytes
    }

    /// See `CheckpointableView`.
    public func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        var restored: [String: [String: Value]] = [:]
        var recordIds: Set<String> = []
        for _ in 0..<(try reader.readCount()) {
            let recordId = try reader.readDistinctString(&recordIds)
            var columns: [String: Value] = [:]
            var names: Set<String> = []
            for _ in 0..<(try reader.readCount()) {
                columns[try reader.readDistinctString(&names)] = try reader.readValue()
            }
            restored[recordId] = columns
        }
        try reader.expectEnd()
        lock.lock()
        defer { lock.unlock() }
        fields = restored
    }
}
