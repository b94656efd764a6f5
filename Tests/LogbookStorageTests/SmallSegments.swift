import LogbookStorage

/// A log configuration for tests: the smallest segments allowed (4 KiB) and small batches,
/// so a few hundred records span many batches and segments.
func smallSegments(batchSizeTarget: Int) -> LogConfiguration {
    var configuration = LogConfiguration()
    configuration.segmentSizeMax = 4096
    configuration.batchSizeTarget = batchSizeTarget
    return configuration
}

/// Every record of the log at `path`, in order, opened with `configuration`.
func readAllRecords(at path: String, _ configuration: LogConfiguration) throws -> [[UInt8]] {
    let log = try Log.open(directory: path, configuration: configuration)
    defer { try? log.close() }
    var records: [[UInt8]] = []
    let cursor = try log.makeCursor(from: 0)
    while try cursor.next() {
        cursor.forEachRecord { _, bytes in records.append(Array(bytes)) }
    }
    return records
}
