import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Shipping without a network: stored batches leave one Logbook verbatim, are checked and
// merged by another, and both end with one state; damaged or out-of-order bytes are refused
// whole; nothing above the durable high watermark is shipped.
@Suite struct ShippedBatchesTests {
    private func open(_ directory: TemporaryDirectory, node: NodeId) throws -> Logbook {
        var options = smallLogOptions(.fsyncEachAppend)
        options.log.batchSizeTarget = 512
        return try Logbook.open(directory: directory.path, nodeId: node, options: options)
    }

    /// Pulls everything `source` has durably into `target`, `maxBytes` at a time.
    private func pullAll(from source: Logbook, into target: Logbook, maxBytes: Int) async throws
        -> Int
    {
        var offset: UInt64 = 0
        var pulls = 0
        while true {
            let shipped = try source.storedBatches(from: offset, maxBytes: maxBytes)
            if shipped.batchCount == 0 { return pulls }
            let (changes, next) = try ShippedBatchReader.changes(in: shipped.bytes, from: offset)
            #expect(next == shipped.nextOffset)
            _ = try await target.merge(changes)
            offset = next
            pulls += 1
        }
    }

    @Test func twoLogbooksConvergeByPullingEachOthersBatches() async throws {
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        defer {
            first.remove()
            second.remove()
        }
        let a = try open(first, node: 1)
        let b = try open(second, node: 2)
        var random = SeededGenerator(seed: 21)
        for round in 0..<150 {
            let record = "entity/e\(Int.random(in: 0..<20, using: &random))"
            let writer = round % 2 == 0 ? a : b
            try await writer.insertOrUpdate(
                record, fields: [("name", .string("n\(round)")), ("content.v", .int(Int64(round)))])
            if round % 37 == 0 { try await writer.deleteRecord("entity/e\(round % 20)") }
        }
        let pullsIntoB = try await pullAll(from: a, into: b, maxBytes: 2048)
        #expect(pullsIntoB > 1)  // several pulls: the byte bound holds
        _ = try await pullAll(from: b, into: a, maxBytes: 1 << 20)
        #expect(a.stateDigest() == b.stateDigest())
        try a.close()
        try b.close()
    }

    @Test func damagedOrReorderedBatchesAreRefusedWhole() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try open(directory, node: 1)
        for number in 0..<60 {
            try await logbook.insertOrUpdate("r\(number)", fields: [("a", .int(Int64(number)))])
        }
        let shipped = try logbook.storedBatches(from: 0, maxBytes: 1 << 20)
        #expect(shipped.batchCount > 2)
        var flipped = shipped.bytes
        flipped[flipped.count / 2] ^= 0x10
        #expect(throws: ShippingFormatError.self) {
            try ShippedBatchReader.changes(in: flipped, from: 0)
        }
        #expect(throws: ShippingFormatError.self) {
            try ShippedBatchReader.changes(in: Array(shipped.bytes.dropLast(5)), from: 0)
        }
        // The second batch sent twice: offsets do not rise.
        let one = try logbook.storedBatches(from: 0, maxBytes: 1)
        let second = try logbook.storedBatches(from: one.nextOffset, maxBytes: 1)
        #expect(throws: ShippingFormatError.self) {
            try ShippedBatchReader.changes(in: one.bytes + second.bytes + second.bytes, from: 0)
        }
        #expect(
            try ShippedBatchReader.changes(in: one.bytes + second.bytes, from: 0).nextOffset
                == second.nextOffset)
        try logbook.close()
    }

    @Test func onlyDurableBatchesAreShipped() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.buffered))
        for number in 0..<20 {
            try await logbook.insertOrUpdate("r\(number)", fields: [("a", .int(Int64(number)))])
        }
        #expect(try logbook.storedBatches(from: 0, maxBytes: 1 << 20).batchCount == 0)
        try logbook.sync()
        let shipped = try logbook.storedBatches(from: 0, maxBytes: 1 << 20)
        #expect(shipped.batchCount > 0)
        #expect(shipped.nextOffset == shipped.durableOffset)
        try logbook.close()
    }

    @Test func aPullFromInsideABatchGetsOnlyTheChangesFromItsOffsetOn() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = smallLogOptions(.buffered)
        options.log.batchSizeTarget = 1 << 16  // one batch for everything below
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        for index in 0..<6 {
            try await logbook.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(index)))])
        }
        try logbook.sync()
        var logged: [(UInt64, String)] = []
        try logbook.forEachChange(since: 0) { offset, change in
            logged.append((offset, change.recordId))
        }
        let middle = logged[3].0
        let shipped = try logbook.storedBatches(from: middle, maxBytes: 1 << 20)
        #expect(shipped.batchCount == 1, "the test needs the offset inside one batch")
        let (changes, _) = try ShippedBatchReader.changes(in: shipped.bytes, from: middle)
        // The batch starts before `middle`; merging its earlier records again could undo a
        // tombstone GC, so they are left out.
        #expect(changes.map(\.recordId) == logged.filter { $0.0 >= middle }.map(\.1))
        try logbook.close()
    }
}
