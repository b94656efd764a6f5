import Logbook

/// The searched records and their texts as a checkpoint; the postings are made again from
/// them at the first search after a restore.
extension ModelSearchIndex {
    /// See `CheckpointableView`: the searched columns, then each record in id order with
    /// each column's text (absent ones marked).
    public func checkpointState() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var writer = CheckpointWriter()
        columnList.write(to: &writer)
        let live = documents.compactMap { $0 }.sorted { $0.recordId < $1.recordId }
        writer.write(UInt64(live.count))
        for document in live {
            writer.write(document.recordId)
            for text in document.texts { writer.write(text) }
        }
        return writer.bytes
    }

    /// See `CheckpointableView`: refuses a state taken on other columns, a record held
    /// twice or out of order, or one outside the model's prefix.
    public func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        try columnList.readAndCheck(from: &reader, role: "searched")
        var restored: [Document?] = []
        var recordIds: Set<String> = []
        for _ in 0..<(try reader.readCount()) {
            let recordId = try reader.readDistinctString(&recordIds)
            let inOrder = restored.last.map { ($0?.recordId ?? "") < recordId } ?? true
            guard recordId.hasPrefix(prefix), inOrder else {
                throw reader.malformed(expected: "records of \(prefix) in id order")
            }
            var texts: [String?] = []
            for _ in columns { texts.append(try reader.readOptionalString()) }
            restored.append(Document(recordId: recordId, texts: texts))
        }
        try reader.expectEnd()
        lock.lock()
        defer { lock.unlock() }
        documents = restored
        slots = [:]
        for (slot, document) in restored.enumerated() {
            if let document { slots[document.recordId] = Int32(truncatingIfNeeded: slot) }
        }
        dirty = Set(restored.indices.map { Int32(truncatingIfNeeded: $0) })
        freeSlots = []
        postings = BM25Index()
    }
}
