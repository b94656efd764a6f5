import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting

/// The standard workload, generated once per process, and the logs written from it.
final class BenchmarkWorkload: @unchecked Sendable {
    // @unchecked: written once in init, read-only afterwards; `logWritten` is read and set
    // under `lock`. Two suites asking for the log at once could both write it: each
    // package-benchmark suite runs in a process of its own, one at a time.
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
    /// per process, or again when `fresh`. For a synchronous benchmark closure: it waits for
    /// the writing task, which an async closure must not (it would hold a thread of the
    /// cooperative pool that the writing needs); those use `writtenLogAsync`.
    func writtenLog(fresh: Bool = false) throws -> String {
        let semaphore = DispatchSemaphore(value: 0)
        let result = UnsafeSendableBox<Result<String, any Error>?>(nil)
        Task {
            do { result.value = .success(try await writtenLogAsync(fresh: fresh)) } catch {
                result.value = .failure(error)
            }
            semaphore.signal()
        }
        semaphore.wait()
        guard let result = result.value else { throw CocoaError(.fileWriteUnknown) }
        return try result.get()
    }

    /// `writtenLog` for an async benchmark closure.
    func writtenLogAsync(fresh: Bool = false) async throws -> String {
        let path = ScratchDirectory.path + "/workload-log"
        if !fresh, lock.withLock({ logWritten }) { return path }
        try? FileManager.default.removeItem(atPath: path)
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 1 << 20
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: options)
        _ = try await logbook.merge(changes)
        try logbook.close()
        lock.withLock { logWritten = true }
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
