import LogbookCRDT

/// One drawbridge opening as the Seattle SODA feed reports it, parsed and typed.
///
/// Parsing rules (Bridget's): every SODA value is a string. A row is skipped when its
/// `entityid` is not an integer, when `entityname`, `entitytype` or `opendatetime` is missing
/// (or `opendatetime` does not parse), or when `latitude`/`longitude` is present but not a
/// number (absent coordinates are allowed: real rows omit them). A missing or empty
/// `closedatetime` means the bridge is still open. Minutes open: the number in
/// `minutesopen`, else the whole minutes from open to close, else 0.
public struct BridgeOpening: Hashable, Sendable {
    /// The SODA `entitytype` ("Bridge").
    public var entityType: String
    /// The SDOT short name of the bridge.
    public var entityName: String
    /// The bridge id.
    public var entityId: Int64
    /// When the bridge opened (wall clock).
    public var openedAt: WallClockTime
    /// When it closed, or nil while it is still open.
    public var closedAt: WallClockTime?
    /// Minutes open (see the type's rules).
    public var minutesOpen: Int64
    /// Latitude as the feed reports it, if present.
    public var latitude: Double?
    /// Longitude as the feed reports it, if present.
    public var longitude: Double?

    /// Why a row was skipped.
    public enum SkipReason: String, Error, Sendable, CaseIterable {
        case entityIdNotInteger = "entityid is not an integer"
        case missingEntityName = "entityname is missing"
        case missingEntityType = "entitytype is missing"
        case missingOpenTime = "opendatetime is missing or malformed"
        case coordinateNotNumber = "latitude or longitude is not a number"
        /// Not a parse failure: the opening's record was deleted on this replica, and
        /// crdt-lite never revives a deleted record (an importer reports it here).
        case deletedRecord = "the opening's record was deleted"
    }

    /// Parses a SODA row (every value a string).
    public static func parse(_ row: [String: String]) -> Result<BridgeOpening, SkipReason> {
        guard let idText = row["entityid"], let entityId = Int64(idText) else {
            return .failure(.entityIdNotInteger)
        }
        guard let name = row["entityname"], !name.isEmpty else {
            return .failure(.missingEntityName)
        }
        guard let type = row["entitytype"], !type.isEmpty else {
            return .failure(.missingEntityType)
        }
        guard let openText = row["opendatetime"], let openedAt = WallClockTime(parsing: openText)
        else {
            return .failure(.missingOpenTime)
        }
        var latitude: Double?
        var longitude: Double?
        for (key, target) in [("latitude", 0), ("longitude", 1)] {
            guard let text = row[key] else { continue }
            guard let number = Double(text), number.isFinite else {
                return .failure(.coordinateNotNumber)
            }
            if target == 0 { latitude = number } else { longitude = number }
        }
        let closedAt = row["closedatetime"].flatMap {
            $0.isEmpty ? nil : WallClockTime(parsing: $0)
        }
        let minutes: Int64
        if let text = row["minutesopen"], let number = Int64(text) {
            minutes = number
        } else if let closedAt {
            minutes = Int64(openedAt.wholeMinutes(until: closedAt))
        } else {
            minutes = 0
        }
        return .success(
            BridgeOpening(
                entityType: type, entityName: name, entityId: entityId, openedAt: openedAt,
                closedAt: closedAt,
                minutesOpen: minutes, latitude: latitude, longitude: longitude))
    }

    /// The record columns, typed: `entityid` and `minutesopen` ints, coordinates doubles,
    /// times as their wall-clock strings (never shifted); `closedatetime` absent while open.
    public var fields: [(String, Value)] {
        var fields: [(String, Value)] = [
            ("entitytype", .string(entityType)), ("entityname", .string(entityName)),
            ("entityid", .int(entityId)),
            ("opendatetime", .string(openedAt.description)), ("minutesopen", .int(minutesOpen)),
        ]
        if let closedAt { fields.append(("closedatetime", .string(closedAt.description))) }
        if let latitude { fields.append(("latitude", .double(latitude))) }
        if let longitude { fields.append(("longitude", .double(longitude))) }
        return fields
    }

    /// The opening as a SODA row again (every value a string), for `BridgeRules.validate`.
    public var sodaRow: [String: String] {
        var row = [
            "entitytype": entityType, "entityname": entityName, "entityid": String(entityId),
            "opendatetime": openedAt.description, "minutesopen": String(minutesOpen),
        ]
        if let closedAt { row["closedatetime"] = closedAt.description }
        if let latitude { row["latitude"] = String(latitude) }
        if let longitude { row["longitude"] = String(longitude) }
        return row
    }

    /// Reads an opening back from a record's fields; nil when a required one is missing.
    public init?(fields: [String: Value]) {
        guard let type = fields["entitytype"]?.stringValue,
            let name = fields["entityname"]?.stringValue,
            let entityId = fields["entityid"]?.intValue,
            let openText = fields["opendatetime"]?.stringValue,
            let openedAt = WallClockTime(parsing: openText)
        else { return nil }
        self.init(
            entityType: type, entityName: name, entityId: entityId, openedAt: openedAt,
            closedAt: fields["closedatetime"]?.stringValue.flatMap(WallClockTime.init(parsing:)),
            minutesOpen: fields["minutesopen"]?.intValue ?? 0,
            latitude: fields["latitude"]?.doubleValue, longitude: fields["longitude"]?.doubleValue)
    }

    /// Memberwise.
    public init(
        entityType: String, entityName: String, entityId: Int64, openedAt: WallClockTime,
        closedAt: WallClockTime?,
        minutesOpen: Int64, latitude: Double?, longitude: Double?
    ) {
        self.entityType = entityType
        self.entityName = entityName
        self.entityId = entityId
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.minutesOpen = minutesOpen
        self.latitude = latitude
        self.longitude = longitude
    }
}
