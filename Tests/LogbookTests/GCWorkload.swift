import Logbook
import LogbookCRDT

/// The writes of the GC simulations and their check for records that came back: every write
/// stores its step in `v`, and a record deleted at step d must never again hold a `v`
/// below d.
struct GCWorkload {
    /// The step of each record's latest deletion.
    var lastDeletion: [String: Int] = [:]
    /// Writes to a record after it had been deleted.
    var reinserts = 0

    /// The rolls (of 100) that are writes: updates 0..<25, record deletions 25..<35, field
    /// deletions 35..<40.
    static let writeRolls = 0..<40

    /// Applies write `roll` to `record` on `node` (index `index`) at `step`.
    mutating func write(
        roll: Int, record: String, on node: Logbook, index: Int, step: Int
    ) async throws {
        switch roll {
        case 0..<25:
            let written = try await node.insertOrUpdate(
                record, fields: [("v", .int(Int64(step))), ("by", .int(Int64(index)))])
            if !written.isEmpty && lastDeletion[record] != nil { reinserts += 1 }
        case 25..<35:
            if try await node.deleteRecord(record) != nil { lastDeletion[record] = step }
        default:
            _ = try await node.deleteField(record, fieldName: "by")
        }
    }

    /// "NAME: r holds v=w, written before its deletion at step d" for each record `name`
    /// holds with a value older than its latest deletion.
    func resurrections(in records: [String: Record<String, Value>], of name: String) -> [String] {
        records.compactMap { id, record in
            guard case .int(let written)? = record.fields["v"], let deleted = lastDeletion[id],
                written < deleted
            else { return nil }
            return
                "\(name): \(id) holds v=\(written), written before its deletion at step \(deleted)"
        }
    }
}
