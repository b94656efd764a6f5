import Logbook

/// The entities search holds, as a checkpoint; the indexes are rebuilt from them on the
/// first query, as after a replay.
extension SearchIndex: CheckpointableView {
    /// See `CheckpointableView`.
    public func checkpointState() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var writer = CheckpointWriter()
        let live = documents.filter(\.alive)
        writer.write(UInt64(live.count))
        for document in live {
            writer.write(document.id)
            writer.write(document.type)
            writer.write(document.name)
            writer.write(document.sequence)
            writer.write(UInt64(document.content.count))
            for member in document.content {
                writer.write(member.key)
                writer.write(member.value)
                writer.write(member.offset)
            }
        }
        return writer.bytes
    }

    /// See `CheckpointableView`.
    public func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        // Ids, insertion orders and a document's content keys are each held once, as the
        // replay gives them: a state repeating one is refused.
        var restored: [Document] = []
        var ids: Set<String> = []
        var sequences: Set<UInt64> = []
        for _ in 0..<(try reader.readCount()) {
            var document = Document(
                id: try reader.readDistinctString(&ids), type: try reader.readOptionalString(),
                name: try reader.readOptionalString(),
                sequence: try reader.readDistinctNumber(&sequences))
            var keys: Set<String> = []
            for _ in 0..<(try reader.readCount()) {
                document.content.append(
                    (
                        try reader.readDistinctString(&keys), try reader.readValue(),
                        try reader.readNumber()
                    ))
            }
            restored.append(document)
        }
        try reader.expectEnd()
        reset()
        lock.lock()
        defer { lock.unlock() }
        for document in restored.sorted(by: { $0.sequence < $1.sequence }) {
            let slot = Int32(documents.count)
            slots[document.id] = slot
            documents.append(document)
            texts.append(nil)
            facts.append(SlotFacts())
            dirty.insert(slot)
        }
    }
}
