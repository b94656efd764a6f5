extension GraphIndex.Statistics {
    /// The statistics as The Goodies prints them: exactly its keys, type counts in its order.
    public var goodiesJSON: OrderedJSON {
        .object([
            ("total_entities", .int(Int64(totalEntities))),
            ("total_relationships", .int(Int64(totalRelationships))),
            ("entity_types", .object(entityTypes.map { ($0.type, .int(Int64($0.count))) })),
            (
                "relationship_types",
                .object(relationshipTypes.map { ($0.type, .int(Int64($0.count))) })
            ),
            ("average_degree", .double(averageDegree)),
            ("isolated_entities", .int(Int64(isolatedEntities))),
        ])
    }
}
