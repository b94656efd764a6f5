import Foundation
import LogbookCRDT

/// crdt-lite-style JSON persistence, the other thing a user would pick: the change list
/// written as one JSON document (appending means re-encoding the list, so this measures the
/// encoding of all changes once), replayed by decoding and applying it; and the whole state
/// (records and tombstones) as one JSON document.
struct JSONBaseline {
    let path: String

    /// Encodes and writes the change list; returns seconds and bytes.
    func appendChangeList(_ changes: [Change<String, String, Value>]) throws -> (
        seconds: Double, bytes: Int64
    ) {
        let started = ContinuousClock.now
        let data = try JSONEncoder().encode(changes)
        try data.write(to: URL(fileURLWithPath: path))
        return ((ContinuousClock.now - started).seconds, Int64(data.count))
    }

    /// Reads, decodes and applies the change list into a fresh CRDT.
    func replayChangeList() throws -> (seconds: Double, changes: Int) {
        let started = ContinuousClock.now
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let changes = try JSONDecoder().decode([Change<String, String, Value>].self, from: data)
        CRDT<String, String, Value>(nodeId: 1).restore(changes)
        return ((ContinuousClock.now - started).seconds, changes.count)
    }

    /// The whole state as JSON: encode and write, then read and decode; seconds and bytes.
    func roundTripState(of changes: [Change<String, String, Value>]) throws -> (
        encode: Double, decode: Double, bytes: Int64
    ) {
        let crdt = CRDT<String, String, Value>(nodeId: 1, changes: changes)
        struct State: Codable {
            var data: [String: Record<String, Value>]
            var tombstones: [String: TombstoneInfo]
            var clock: LogicalClock
        }
        let started = ContinuousClock.now
        let data = try JSONEncoder().encode(
            State(data: crdt.getData(), tombstones: crdt.getTombstones(), clock: crdt.getClock()))
        try data.write(to: URL(fileURLWithPath: path + ".state"))
        let encodeSeconds = (ContinuousClock.now - started).seconds
        let readStarted = ContinuousClock.now
        _ = try JSONDecoder().decode(
            State.self, from: Data(contentsOf: URL(fileURLWithPath: path + ".state")))
        return (encodeSeconds, (ContinuousClock.now - readStarted).seconds, Int64(data.count))
    }
}
