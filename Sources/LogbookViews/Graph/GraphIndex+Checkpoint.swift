import Logbook

/// The graph's entities and relationships, with their insertion order, as a checkpoint.
extension GraphIndex: CheckpointableView {
    /// See `CheckpointableView`.
    public func checkpointState() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var writer = CheckpointWriter()
        writer.write(UInt64(entities.count))
        for entity in entities.values.sorted(by: { $0.sequence < $1.sequence }) {
            writer.write(entity.id)
            writer.write(entity.type)
            writer.write(entity.name)
            writer.write(entity.sequence)
        }
        writer.write(UInt64(relationships.count))
        for relationship in relationships.values.sorted(by: { $0.sequence < $1.sequence }) {
            writer.write(relationship.id)
            writer.write(relationship.from)
            writer.write(relationship.to)
            writer.write(relationship.type)
            writer.write(relationship.sequence)
        }
        return writer.bytes
    }

    /// See `CheckpointableView`.
    public func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        // Ids and insertion orders are each held once, as the replay gives them (an order
        // is the offset of a record's first change): a state repeating one is refused.
        var restoredEntities: [String: Entity] = [:]
        var entityIds: Set<String> = []
        var entitySequences: Set<UInt64> = []
        for _ in 0..<(try reader.readCount()) {
            let entity = Entity(
                id: try reader.readDistinctString(&entityIds),
                type: try reader.readOptionalString(), name: try reader.readOptionalString(),
                sequence: try reader.readDistinctNumber(&entitySequences))
            restoredEntities[entity.id] = entity
        }
        var ordered: [Relationship] = []
        var relationshipIds: Set<String> = []
        var relationshipSequences: Set<UInt64> = []
        for _ in 0..<(try reader.readCount()) {
            ordered.append(
                Relationship(
                    id: try reader.readDistinctString(&relationshipIds),
                    from: try reader.readOptionalString(), to: try reader.readOptionalString(),
                    type: try reader.readOptionalString(),
                    sequence: try reader.readDistinctNumber(&relationshipSequences)))
        }
        try reader.expectEnd()
        reset()
        lock.lock()
        defer { lock.unlock() }
        entities = restoredEntities
        for relationship in ordered.sorted(by: { $0.sequence < $1.sequence }) {
            relationships[relationship.id] = relationship
            guard let edge = relationship.edge else { continue }
            outgoing[edge.from, default: []].append(relationship.id)
            incoming[edge.to, default: []].append(relationship.id)
        }
    }
}
