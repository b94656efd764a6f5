import LogbookCRDT

/// A Goodies home graph file (`{"entities": [...], "relationships": [...]}`) as Logbook
/// record writes: entities, then relationships, each in file order — the insertion order the
/// Goodies' graph semantics depend on.
public struct GoodiesDocument: Sendable {
    /// One record write: the record id and its columns in the order the file gives them.
    public struct RecordWrite: Sendable, Equatable {
        /// `entity/<id>` or `relationship/<id>`.
        public var recordId: String
        /// Columns and values.
        public var fields: [(String, Value)]

        /// Member-wise equality.
        public static func == (lhs: RecordWrite, rhs: RecordWrite) -> Bool {
            lhs.recordId == rhs.recordId && lhs.fields.elementsEqual(rhs.fields) { $0 == $1 }
        }
    }

    /// Why a file is not a Goodies graph: where (`entities[3].id`) and what was expected.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        /// A JSON path such as `relationships[12].to_entity_id`, or `byte N` for bad JSON.
        public var location: String
        /// What was expected there.
        public var expected: String

        /// A one-line explanation.
        public var description: String { "\(location): expected \(expected)" }

        /// An error at `location`.
        public init(location: String, expected: String) {
            self.location = location
            self.expected = expected
        }
    }

    /// Entity writes in file order.
    public var entities: [RecordWrite]
    /// Relationship writes in file order.
    public var relationships: [RecordWrite]

    /// Every write: entities first, then relationships.
    public var writes: [RecordWrite] { entities + relationships }

    /// Parses a Goodies JSON file.
    public init(parsing bytes: [UInt8]) throws(FormatError) {
        let root: OrderedJSON
        do {
            root = try OrderedJSON.parse(bytes)
        } catch {
            throw FormatError(location: "byte \(error.offset)", expected: error.expected)
        }
        guard case .object = root else {
            throw FormatError(location: "document", expected: "an object with entities")
        }
        entities = try Self.records(
            root["entities"], section: "entities", prefix: GoodiesRecords.entityPrefix,
            stringColumns: GoodiesRecords.entityStringColumns,
            required: [GoodiesRecords.entityType, GoodiesRecords.name],
            nested: ("content", GoodiesRecords.contentPrefix))
        relationships = try Self.records(
            root["relationships"] ?? .array([]), section: "relationships",
            prefix: GoodiesRecords.relationshipPrefix,
            stringColumns: GoodiesRecords.relationshipStringColumns,
            required: GoodiesRecords.relationshipStringColumns,
            nested: ("properties", GoodiesRecords.propertiesPrefix))
    }

    private static func records(
        _ section: OrderedJSON?, section name: String, prefix: String, stringColumns: [String],
        required: [String], nested: (key: String, columnPrefix: String)
    ) throws(FormatError) -> [RecordWrite] {
        guard case .array(let items)? = section else {
            throw FormatError(location: name, expected: "an array")
        }
        var writes: [RecordWrite] = []
        writes.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let location = "\(name)[\(index)]"
            guard case .object = item else {
                throw FormatError(location: location, expected: "an object")
            }
            guard let id = item["id"]?.stringValue, !id.isEmpty else {
                throw FormatError(location: "\(location).id", expected: "a non-empty string")
            }
            var fields: [(String, Value)] = []
            for column in stringColumns {
                switch item[column] {
                case nil, .null?:
                    if required.contains(column) {
                        throw FormatError(location: "\(location).\(column)", expected: "a string")
                    }
                case .string(let text)?:
                    fields.append((column, .string(text)))
                default:
                    throw FormatError(location: "\(location).\(column)", expected: "a string")
                }
            }
            switch item[nested.key] {
            case nil, .null?:
                break
            case .object(let members)?:
                for member in members {
                    fields.append((nested.columnPrefix + member.key, member.value.value))
                }
            default:
                throw FormatError(location: "\(location).\(nested.key)", expected: "an object")
            }
            writes.append(RecordWrite(recordId: prefix + id, fields: fields))
        }
        return writes
    }
}
