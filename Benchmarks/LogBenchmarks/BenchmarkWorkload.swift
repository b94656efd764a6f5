import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting

/// The standard workload, generated once per process, and the logs written from it.
final class BenchmarkWorkload: @unchecked Sendable {
    // @unchecked: written once in init, read-only afterwards (the lazily written log is
    // guarded by `lock`).
    let operations: [StandardWorkload.Operation]
    let changes: [Change<String, String, Value>]
    private let lock = NSLock()
    private var logWritten = false

    init(records: Int, changes changeCount: Int) {
        let operations = StandardWorkload.operations(records: records, changes: changeCount * 2)
        let changes = Array(StandardWorkload.changes(of: operations).prefix(changeCount))
        self.operations = operations
        self.changes = changes
    }

    func freshLogbook(_ durability: Durability) throws -> Logbook {
        var options = LogbookOptions()
        options.durability = durability
        options.log.segmentSizeMax = 1 << 20
        return try Logbook.open(
            directory: ScratchDirectory.fresh("append-log"), nodeId: 1, options: options)
    }

    /// A log holding every change of the workload (merged as another node's), written once
    /// per process, or again when `fresh`.
    func writtenLog(fresh: Bool = false) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let path = ScratchDirectory.path + "/workload-log"
        if logWritten && !fresh { return path }
        try? FileManager.default.removeItem(atPath: path)
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 1 << 20
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: options)
        let semaphore = DispatchSemaphore(value: 0)
        let changes = self.changes
        let failure = UnsafeSendableBox<(any Error)?>(nil)
        Task {
            do { _ = try await logbook.merge(changes) } catch { failure.value = error }
            semaphore.signal()
        }
        semaphore.wait()
        if let error = failure.value { throw error }
        try logbook.close()
        logWritten = true
        return path
    }

    /// The stored LZ4 frames of the written log.
    func frames() throws -> StoredFrames {
        try StoredFrames(logAt: try writtenLog())
    }
}

/// A box for handing a result out of a task in a synchronous setup function.
final class UnsafeSendableBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
