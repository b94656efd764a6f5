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
        var restoredEntities: [String: Entity] = [:]
        for _ in 0..<(try reader.readCount()) {
            let entity = Entity(
                id: try reader.readString(), type: try reader.readOptionalString(),
                name: try reader.readOptionalString(), sequence: try reader.readNumber())
            restoredEntities[entity.id] = entity
        }
        var ordered: [Relationship] = []
        for _ in 0..<(try reader.readCount()) {
            ordered.append(
                Relationship(
                    id: try reader.readString(), from: try reader.readOptionalString(),
                    to: try reader.readOptionalString(), type: try reader.readOptionalString(),
                    sequence: try reader.readNumber()))
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
