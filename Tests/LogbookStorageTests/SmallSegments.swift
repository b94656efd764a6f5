import Foundation
import LogbookStorage
import LogbookTesting

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

/// The records read back from the first segment of the log at `source` cut to each length
/// from 0 to its size, one copy per cut; `body` gets the cut, the records and the copy.
func forEachCut(
    ofFirstSegmentIn source: TemporaryDirectory, _ configuration: LogConfiguration,
    _ body: (_ cut: Int, _ records: [[UInt8]], _ copy: TemporaryDirectory) throws -> Void
) throws {
    let segment = SegmentFileName.segment(baseOffset: 0)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source.appending(segment)))
    for cut in 0...bytes.count {
        let copy = TemporaryDirectory("cut")
        defer { copy.remove() }
        try bytes.prefix(cut).write(to: URL(fileURLWithPath: copy.appending(segment)))
        try body(cut, try readAllRecords(at: copy.path, configuration), copy)
    }
}
