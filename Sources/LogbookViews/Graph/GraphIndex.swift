import Foundation
import Logbook
import LogbookCRDT

/// The home graph of The Goodies, kept from the `entity/` and `relationship/` records of a
/// Logbook, with the Goodies' traversal semantics (see `GraphIndex+Traversal.swift`).
///
/// Insertion order — the order records were first created in the log — is the order every
/// traversal visits edges in. The log offset of a record's first change stands for it:
/// replay sees the same offsets as live writes did.
public final class GraphIndex: MaterializedView, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`; the Logbook calls apply/reset under its own
    // lock and queries may come from other threads.

    /// An entity as the view holds it.
    public struct Entity: Hashable, Sendable {
        /// The Goodies id (the record id without `entity/`).
        public var id: String
        /// `entity_type`, nil while the record has none.
        public var type: String?
        /// `name`, nil while the record has none.
        public var name: String?
        /// The offset of the record's first change: its insertion order.
        public var sequence: UInt64
    }

    /// A relationship as the view holds it; an edge once all three columns are present.
    public struct Relationship: Hashable, Sendable {
        /// The Goodies id (the record id without `relationship/`).
        public var id: String
        /// `from_entity_id`.
        public var from: String?
        /// `to_entity_id`.
        public var to: String?
        /// `relationship_type`.
        public var type: String?
        /// The offset of the record's first change: its insertion order.
        public var sequence: UInt64

        /// From, to and type, when all are present.
        var edge: (from: String, to: String, type: String)? {
            guard let from, let to, let type else { return nil }
            return (from, to, type)
        }
    }

    /// The view's name.
    public let name = "graph"
    /// See `MaterializedView`: this view's state is its own, so a replay may apply it on a
    /// thread of its own.
    public var replaysIndependently: Bool { true }
    let lock = NSLock()
    var entities: [String: Entity] = [:]
    var relationships: [String: Relationship] = [:]
    /// Relationship ids by source entity, in insertion order.
    var outgoing: [String: [String]] = [:]
    /// Relationship ids by target entity, in insertion order.
    var incoming: [String: [String]] = [:]

    /// An empty view; register it in `LogbookOptions.views`.
    public init() {}

    /// See `MaterializedView`.
    public func reset() {
        lock.lock()
        defer { lock.unlock() }
        entities = [:]
        relationships = [:]
        outgoing = [:]
        incoming = [:]
    }

    /// See `MaterializedView`.
    public func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        let recordId = change.recordId
        if recordId.hasPrefix(GoodiesRecords.entityPrefix) {
            let id = String(recordId.dropFirst(GoodiesRecords.entityPrefix.count))
            lock.lock()
            defer { lock.unlock() }
            applyToEntity(id, column: change.colName, value: change.value, offset: offset)
        } else if recordId.hasPrefix(GoodiesRecords.relationshipPrefix) {
            let id = String(recordId.dropFirst(GoodiesRecords.relationshipPrefix.count))
            lock.lock()
            defer { lock.unlock() }
            applyToRelationship(id, column: change.colName, value: change.value, offset: offset)
        }
    }

    private func applyToEntity(_ id: String, column: String?, value: Value?, offset: UInt64) {
        guard let column else {
            entities[id] = nil
            return
        }
        var entity = entities[id] ?? Entity(id: id, sequence: offset)
        switch column {
        case GoodiesRecords.entityType: entity.type = value?.stringValue
        case GoodiesRecords.name: entity.name = value?.stringValue
        default: break
        }
        entities[id] = entity
    }

    private func applyToRelationship(_ id: String, column: String?, value: Value?, offset: UInt64) {
        guard let column else {
            if let old = relationships[id] { detach(old) }
            relationships[id] = nil
            return
        }
        var relationship = relationships[id] ?? Relationship(id: id, sequence: offset)
        let old = relationship
        switch column {
        case GoodiesRecords.fromEntity: relationship.from = value?.stringValue
        case GoodiesRecords.toEntity: relationship.to = value?.stringValue
        case GoodiesRecords.relationshipType: relationship.type = value?.stringValue
        default: break  // properties: not part of the graph's shape
        }
        relationships[id] = relationship
        if old != relationship {
            detach(old)
            attach(relationship)
        }
    }

    private func attach(_ relationship: Relationship) {
        guard let edge = relationship.edge else { return }
        insert(relationship, into: &outgoing[edge.from, default: []])
        insert(relationship, into: &incoming[edge.to, default: []])
    }

    private func detach(_ relationship: Relationship) {
        guard let edge = relationship.edge else { return }
        outgoing[edge.from]?.removeAll { $0 == relationship.id }
        if outgoing[edge.from]?.isEmpty == true { outgoing[edge.from] = nil }
        incoming[edge.to]?.removeAll { $0 == relationship.id }
        if incoming[edge.to]?.isEmpty == true { incoming[edge.to] = nil }
    }

    /// Inserts keeping insertion order; appends (the common case, offsets rise) are O(1).
    private func insert(_ relationship: Relationship, into list: inout [String]) {
        if let last = list.last, let lastSequence = relationships[last]?.sequence,
            lastSequence > relationship.sequence
        {
            let index =
                list.firstIndex { (relationships[$0]?.sequence ?? 0) > relationship.sequence }
                ?? list.endIndex
            list.insert(relationship.id, at: index)
        } else {
            list.append(relationship.id)
        }
    }

    /// See `MaterializedView`: entities and relationships with their insertion order.
    public func digest() -> StateDigest {
        lock.lock()
        defer { lock.unlock() }
        var builder = StateDigestBuilder()
        for entity in entities.values.sorted(by: { $0.id < $1.id }) {
            builder.combine(
                "E\u{0}\(entity.id)\u{0}\(entity.type ?? "\u{1}")\u{0}\(entity.name ?? "\u{1}")\u{0}\(entity.sequence)"
            )
        }
        for relationship in relationships.values.sorted(by: { $0.id < $1.id }) {
            let parts = [relationship.from, relationship.to, relationship.type].map {
                $0 ?? "\u{1}"
            }
            builder.combine(
                "R\u{0}\(relationship.id)\u{0}\(parts.joined(separator: "\u{0}"))\u{0}\(relationship.sequence)"
            )
        }
        return builder.finalize()
    }

    // MARK: Lookups shared by the queries (callers hold `lock`)

    /// Edges leaving `id` in insertion order, optionally of the given types.
    func edges(from id: String, types: Set<String>?) -> [(to: String, type: String, id: String)] {
        complete(outgoing[id], types).map { ($0.edge.to, $0.edge.type, $0.id) }
    }

    /// Edges arriving at `id` in insertion order, optionally of the given types.
    func edges(to id: String, types: Set<String>?) -> [(from: String, type: String, id: String)] {
        complete(incoming[id], types).map { ($0.edge.from, $0.edge.type, $0.id) }
    }

    /// The complete edges among `relationshipIds`, of `types` when given.
    private func complete(_ relationshipIds: [String]?, _ types: Set<String>?)
        -> [(id: String, edge: (from: String, to: String, type: String))]
    {
        (relationshipIds ?? []).compactMap { relationshipId in
            guard let edge = relationships[relationshipId]?.edge,
                types.map({ $0.contains(edge.type) }) ?? true
            else { return nil }
            return (relationshipId, edge)
        }
    }

    /// The entity with this id, if the view holds its record.
    public func entity(_ id: String) -> Entity? {
        lock.lock()
        defer { lock.unlock() }
        return entities[id]
    }

    /// The relationship with this id, if the view holds its record.
    public func relationship(_ id: String) -> Relationship? {
        lock.lock()
        defer { lock.unlock() }
        return relationships[id]
    }
}
