import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

@testable import LogbookHub

// A long catch-up reads the stream in several queries, the next asked for while the last is
// framed. How many rows each query reads must not change the answer: the same batches, byte
// for byte, the same offsets, from any offset and under any bound.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubCatchUpPagesTests {
    /// A stream of versions holding 1 to 12 rows: cells from three nodes, field deletions,
    /// record deletions (which drop the record's cells) and writes to deleted records.
    static func fill(_ store: HubStore, _ stream: HubStream) async throws {
        let nodes = (1...3).map { CRDT<String, String, Value>(nodeId: UInt64($0)) }
        var random = SeededGenerator(seed: 44)
        for _ in 0..<80 {
            let node = nodes[Int.random(in: 0..<3, using: &random)]
            var push: [Change<String, String, Value>] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let id = "r\(Int.random(in: 0..<150, using: &random))"
                switch Int.random(in: 0..<10, using: &random) {
                case 0: push += node.deleteRecord(id).map { [$0] } ?? []
                case 1: push += node.deleteField(id, fieldName: "b").map { [$0] } ?? []
                default:
                    push += node.insertOrUpdate(
                        id,
                        fields: (0..<Int.random(in: 1...3, using: &random)).map {
                            (["a", "b", "c"][$0], .int(Int64.random(in: 0..<1000, using: &random)))
                        })
                }
            }
            _ = try await store.merge(push, into: stream)
        }
    }

    @Test func howManyRowsAQueryReadsChangesNoByteOfTheAnswer() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            try await Self.fill(store, stream)
            let whole = try await store.batches(in: stream, from: 0, maxBytes: 1 << 20)
            let held = try ShippedBatchReader.announced(in: whole.bytes).records
            #expect(held > 100, "the stream holds \(held) changes")
            // Offsets to start from: the start, and where answers of a few rows end.
            var starts: [UInt64] = [0]
            for _ in 0..<4 {
                let last = try #require(starts.last)
                starts.append(
                    try await store.batches(in: stream, from: last, maxBytes: 16 * 9).nextOffset)
            }
            for start in starts {
                for maxBytes in [16, 16 * 10, 16 * 45, 1 << 20] {
                    let onePage = try await store.batches(
                        in: stream, from: start, maxBytes: maxBytes, pageRows: 1 << 20)
                    for pageRows in [1, 2, 7, 30] {
                        let paged = try await store.batches(
                            in: stream, from: start, maxBytes: maxBytes, pageRows: pageRows)
                        let label = "from \(start), \(maxBytes) bytes, \(pageRows) rows a query"
                        #expect(
                            paged.bytes.elementsEqual(onePage.bytes),
                            "\(label): \(paged.bytes.count) against \(onePage.bytes.count) bytes")
                        #expect(paged.batchCount == onePage.batchCount, "\(label)")
                        #expect(paged.nextOffset == onePage.nextOffset, "\(label)")
                        #expect(paged.durableOffset == onePage.durableOffset, "\(label)")
                    }
                }
            }
            #expect(whole.nextOffset == whole.durableOffset, "the whole stream is one answer")
        }
    }
}
