import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import LogbookViews
import Testing

// A checkpoint file's CRC catches damage, not a file written on purpose: each built-in view
// checks the state it reads. The replay gives every entity, relationship and content key one
// id and every record one insertion order (the offset of its first change), so a state
// repeating one was never written by a view and is refused; the fuzz target
// `view-checkpoints` found a graph state with two entities at order 0 that restored and then
// saved in another order.
@Suite struct HostileCheckpointStateTests {
    /// One entity or search document: id, type, name, insertion order.
    private static func entity(
        _ id: String, sequence: UInt64, into writer: inout CheckpointWriter
    ) {
        writer.write(id)
        writer.write("device" as String?)
        writer.write("Lamp \(id)" as String?)
        writer.write(sequence)
    }

    /// A graph state of the given entities (id, order) and relationships (id, order).
    private static func graphState(
        entities: [(String, UInt64)], relationships: [(String, UInt64)]
    ) -> [UInt8] {
        var writer = CheckpointWriter()
        writer.write(UInt64(entities.count))
        for (id, sequence) in entities { entity(id, sequence: sequence, into: &writer) }
        writer.write(UInt64(relationships.count))
        for (id, sequence) in relationships {
            writer.write(id)
            writer.write(entities.first?.0)
            writer.write(entities.last?.0)
            writer.write("located_in" as String?)
            writer.write(sequence)
        }
        return writer.bytes
    }

    /// A search state of the given documents (id, order, content keys).
    private static func searchState(_ documents: [(String, UInt64, [String])]) -> [UInt8] {
        var writer = CheckpointWriter()
        writer.write(UInt64(documents.count))
        for (id, sequence, keys) in documents {
            entity(id, sequence: sequence, into: &writer)
            writer.write(UInt64(keys.count))
            for (index, key) in keys.enumerated() {
                writer.write(key)
                writer.write(Value.string("value \(index)"))
                writer.write(sequence + UInt64(index))
            }
        }
        return writer.bytes
    }

    /// A drawbridge state of the given records' column names.
    private static func bridgesState(_ records: [(String, [String])]) -> [UInt8] {
        var writer = CheckpointWriter()
        writer.write(UInt64(records.count))
        for (recordId, columns) in records {
            writer.write(recordId)
            writer.write(UInt64(columns.count))
            for column in columns {
                writer.write(column)
                writer.write(Value.int(1))
            }
        }
        return writer.bytes
    }

    /// Restores `state` into a new view; the error's expectation, or nil when it restored.
    private static func refusal<View: CheckpointableView>(
        _ makeView: () -> View, _ state: [UInt8]
    ) -> String? {
        do {
            try makeView().restoreCheckpoint(state)
            return nil
        } catch {
            return error.expected
        }
    }

    @Test func aGraphStateRepeatingAnIdOrAnOrderIsRefused() {
        let distinct = Self.graphState(
            entities: [("a", 1), ("b", 2)], relationships: [("r", 3), ("s", 4)])
        #expect(Self.refusal(GraphIndex.init, distinct) == nil)
        for state in [
            Self.graphState(entities: [("a", 1), ("a", 2)], relationships: []),
            Self.graphState(entities: [("a", 1), ("b", 2)], relationships: [("r", 3), ("r", 4)]),
        ] {
            #expect(Self.refusal(GraphIndex.init, state) == "a string not read before")
        }
        for state in [
            Self.graphState(entities: [("a", 1), ("b", 1)], relationships: []),
            Self.graphState(entities: [("a", 1), ("b", 2)], relationships: [("r", 3), ("s", 3)]),
            // The fuzzer's input: entities "h]\0" and "", both at order 0.
            [2, 3, 0x68, 0x5d, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ] {
            #expect(Self.refusal(GraphIndex.init, state) == "a number not read before")
        }
    }

    @Test func aSearchStateRepeatingAnIdAnOrderOrAContentKeyIsRefused() {
        #expect(
            Self.refusal(SearchIndex.init, Self.searchState([("a", 1, ["x", "y"]), ("b", 2, [])]))
                == nil)
        #expect(
            Self.refusal(SearchIndex.init, Self.searchState([("a", 1, []), ("a", 2, [])]))
                == "a string not read before")
        #expect(
            Self.refusal(SearchIndex.init, Self.searchState([("a", 1, ["x", "x"])]))
                == "a string not read before")
        #expect(
            Self.refusal(SearchIndex.init, Self.searchState([("a", 1, []), ("b", 1, [])]))
                == "a number not read before")
    }

    @Test func aDrawbridgeStateRepeatingARecordOrAColumnIsRefused() {
        #expect(
            Self.refusal(BridgeStatsView.init, Self.bridgesState([("1", ["a", "b"]), ("2", [])]))
                == nil)
        #expect(
            Self.refusal(BridgeStatsView.init, Self.bridgesState([("1", []), ("1", [])]))
                == "a string not read before")
        #expect(
            Self.refusal(BridgeStatsView.init, Self.bridgesState([("1", ["a", "a"])]))
                == "a string not read before")
    }

    /// A graph checkpoint written on purpose, its length and CRC right and its state
    /// repeating an order: the reopen discards it, says why, and rebuilds the view.
    @Test func aReopenDiscardsACheckpointWrittenOnPurposeAndRebuilds() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1,
            options: ViewCheckpointTests.options(ViewCheckpointTests.views()))
        try await ViewCheckpointTests.write(200, seed: 8, to: logbook)
        try logbook.close()

        let path = directory.appending("view-graph.checkpoint")
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        // The header's first 36 bytes (`ViewCheckpointFile`): magic, format, offset, anchor,
        // digest; then the state's length and CRC32C, then the state.
        let state = Self.graphState(entities: [("a", 1), ("b", 1)], relationships: [])
        var crafted = Array(file.prefix(36))
        withUnsafeBytes(of: UInt64(state.count).littleEndian) { crafted += $0 }
        withUnsafeBytes(of: CRC32C.checksum(state).littleEndian) { crafted += $0 }
        crafted += state
        try Data(crafted).write(to: URL(fileURLWithPath: path))

        let views = ViewCheckpointTests.views()
        let reopened = try Logbook.open(
            directory: directory.path, options: ViewCheckpointTests.options(views))
        guard case .discarded(let reason)? = reopened.viewCheckpointStatus["graph"] else {
            Issue.record("expected the crafted checkpoint to be discarded")
            return
        }
        #expect(reason.contains("a number not read before"), "\(reason)")
        try reopened.close()
        #expect(
            views.map { $0.digest() }
                == (try ViewCheckpointTests.fullRebuildDigests(directory.path)))
    }
}
