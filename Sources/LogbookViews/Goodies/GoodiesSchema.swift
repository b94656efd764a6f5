/// The Goodies' entity types, in the order its statistics list them.
public enum GoodiesEntityType: String, CaseIterable, Sendable {
    case home, room, device, zone, door, window, procedure, manual, note, schedule, automation,
        app
}

/// The Goodies' relationship types.
public enum GoodiesRelationshipType: String, CaseIterable, Sendable {
    case locatedIn = "located_in"
    case controls
    case connectsTo = "connects_to"
    case partOf = "part_of"
    case manages
    case documentedBy = "documented_by"
    case procedureFor = "procedure_for"
    case triggeredBy = "triggered_by"
    case dependsOn = "depends_on"
    case containedIn = "contained_in"
    case monitors
    case automates
    case controlledByApp = "controlled_by_app"
    case hasBlob = "has_blob"

    /// Types whose edges point from child to parent: ancestors follow them outgoing.
    public var pointsToParent: Bool {
        self == .partOf || self == .locatedIn || self == .containedIn
    }
}

/// How Goodies entities and relationships map to Logbook records.
///
/// An entity is `entity/<id>` with `entity_type`, `name`, `source_type`, `user_id` and one
/// `content.<key>` column per top-level content key; a relationship is
/// `relationship/<id>` with `from_entity_id`, `to_entity_id`, `relationship_type` and
/// `properties.<key>` columns. Writing some `content.` columns of an existing entity is
/// the Goodies' shallow merge of content.
public enum GoodiesRecords {
    /// Entity record ids start with this.
    public static let entityPrefix = "entity/"
    /// Relationship record ids start with this.
    public static let relationshipPrefix = "relationship/"
    /// Content columns start with this.
    public static let contentPrefix = "content."
    /// Relationship property columns start with this.
    public static let propertiesPrefix = "properties."
    /// The entity's type column.
    public static let entityType = "entity_type"
    /// The entity's name column.
    public static let name = "name"
    /// The relationship's source column.
    public static let fromEntity = "from_entity_id"
    /// The relationship's target column.
    public static let toEntity = "to_entity_id"
    /// The relationship's type column.
    public static let relationshipType = "relationship_type"
    /// Plain string columns of an entity, copied when present.
    static let entityStringColumns = ["entity_type", "name", "source_type", "user_id"]
    /// Plain string columns of a relationship, copied when present.
    static let relationshipStringColumns = ["from_entity_id", "to_entity_id", "relationship_type"]
}
