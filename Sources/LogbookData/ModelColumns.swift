import LogbookCRDT
import Synchronization

/// How a model's value and its record's columns map to each other.
///
/// A model is encoded to an object whose keys are its columns. Saving erases a stored
/// column the encoding lacks only when the model knows it — a key its `init(from:)` asks
/// about, recorded on every decode of the type — so that an optional set to nil is erased
/// while a column written by a newer version of the app, unknown to this one, is kept.
enum ModelColumns {
    /// What a model type's decodings asked about.
    private struct Learned {
        /// Every key any decoding of the type asked about.
        var names: Set<String> = []
        /// The keys the last decoding asked about, in order: a decoding that asks the same
        /// (a synthesized `init(from:)` always does) adds nothing and hashes nothing.
        var last: [String] = []
    }

    /// Per model type, what its decodings asked about.
    private static let known = Mutex<[ObjectIdentifier: Learned]>([:])

    /// The columns `model` encodes to.
    static func encode<M: LogbookModel>(_ model: M) throws(ModelError) -> [String: Value] {
        let value: Value
        do {
            value = try ValueEncoder.encode(model: model)
        } catch let failure as ValueCodingFailure {
            throw .unencodable(
                recordId: model.recordId, path: failure.path,
                reason: "expected \(failure.expected), found \(failure.found)")
        } catch {
            throw .unencodable(recordId: model.recordId, path: "", reason: "\(error)")
        }
        guard case .object(let columns) = value else {
            throw .unencodable(
                recordId: model.recordId, path: "",
                reason: "a model must encode to keyed properties, not \(value.kindDescription)")
        }
        return columns
    }

    /// The model a record's columns hold; learns the keys the type asks for.
    static func decode<M: LogbookModel>(
        _ type: M.Type, recordId: String, columns: [String: Value]
    ) throws(ModelError) -> M {
        try decode(type, recordId: recordId, source: .fields(columns))
    }

    /// The model a stored record holds, read from the record's columns in place.
    static func decode<M: LogbookModel>(
        _ type: M.Type, recordId: String, record: Record<String, Value>
    ) throws(ModelError) -> M {
        try decode(type, recordId: recordId, source: .record(record))
    }

    private static func decode<M: LogbookModel>(
        _ type: M.Type, recordId: String, source: ColumnSource
    ) throws(ModelError) -> M {
        let requested = RequestedKeys()
        do {
            let model = try ValueDecoder.decode(
                type, columns: source, schema: ModelSchema.of(type, recordId: recordId),
                requestedKeys: requested)
            learn(type, requested.names)
            return model
        } catch let failure as ValueCodingFailure {
            throw .undecodable(
                recordId: recordId, path: failure.path, expected: failure.expected,
                found: failure.found)
        } catch let error as DecodingError {
            let context = Self.context(of: error)
            throw .undecodable(
                recordId: recordId, path: ValueCodingFailure.spell(context?.codingPath ?? []),
                expected: "a value the model's init(from:) accepts",
                found: context?.debugDescription ?? "\(error)")
        } catch {
            throw .undecodable(
                recordId: recordId, path: "", expected: "a value the model accepts",
                found: "\(error)")
        }
    }

    /// Where a model's own `init(from:)` threw, and what it said.
    private static func context(of error: DecodingError) -> DecodingError.Context? {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context), .dataCorrupted(let context):
            return context
        @unknown default:
            return nil
        }
    }

    /// The columns the model type knows: those its decoding asks about. Learned from
    /// `columns` (the model's own encoding) the first time the type is seen.
    static func knownColumns<M: LogbookModel>(
        _ type: M.Type, recordId: String, encoded columns: [String: Value]
    ) throws(ModelError) -> Set<String> {
        if let names = known.withLock({ $0[ObjectIdentifier(type)]?.names }) { return names }
        _ = try decode(type, recordId: recordId, columns: columns)
        return known.withLock { $0[ObjectIdentifier(type)]?.names } ?? []
    }

    private static func learn<M>(_ type: M.Type, _ names: [String]) {
        known.withLock { known in
            let id = ObjectIdentifier(type)
            guard known[id]?.last != names else { return }
            known[id, default: Learned()].names.formUnion(names)
            known[id]?.last = names
        }
    }

    /// The writes that take a record from `stored` columns to `encoded` ones: one
    /// `insertOrUpdate` of the columns whose value differs (none when all are equal), and a
    /// `deleteField` for each stored column the model knows and no longer encodes.
    static func writes(
        recordId: String, stored: [String: Value], encoded: [String: Value],
        known: Set<String>
    ) -> [LocalWrite] {
        writes(
            recordId: recordId, encoded: encoded, known: known, storedColumns: Array(stored.keys),
            storedValue: { stored[$0] })
    }

    /// `writes(recordId:stored:encoded:known:)` from a stored record itself (nil: none yet),
    /// its columns read in place: no dictionary of its fields built.
    static func writes(
        recordId: String, record: Record<String, Value>?, encoded: [String: Value],
        known: Set<String>
    ) -> [LocalWrite] {
        var columns: [String] = []
        record?.forEachColumn { column, _, value in
            if value != nil { columns.append(column) }
        }
        return writes(
            recordId: recordId, encoded: encoded, known: known, storedColumns: columns,
            storedValue: { record?.field($0) })
    }

    private static func writes(
        recordId: String, encoded: [String: Value], known: Set<String>, storedColumns: [String],
        storedValue: (String) -> Value?
    ) -> [LocalWrite] {
        var changed: [(String, Value)] = []
        for (column, value) in encoded where storedValue(column) != value {
            changed.append((column, value))
        }
        changed.sort { $0.0 < $1.0 }
        var writes: [LocalWrite] = []
        if !changed.isEmpty {
            writes.append(.insertOrUpdate(recordId, fields: changed))
        }
        let erased = storedColumns.filter { isErased($0, encoded: encoded, known: known) }
        for column in erased.sorted() {
            writes.append(.deleteField(recordId, fieldName: column))
        }
        return writes
    }

    /// Whether a stored column goes when a model is saved: the model knows it and its
    /// encoding lacks it (an optional set to nil). Columns the model does not know stay.
    static func isErased(_ column: String, encoded: [String: Value], known: Set<String>) -> Bool {
        encoded[column] == nil && known.contains(column)
    }

    /// Stamps the columns of a record saved new with the model's `schemaVersion`: it is in
    /// the current shape, so no migration is to run on it. Nothing when the version is 0.
    static func stampNewRecord<M: LogbookModel>(_ columns: inout [String: Value], of type: M.Type) {
        guard M.schemaVersion > 0 else { return }
        columns[ModelMigration<M>.versionColumn] = .int(Int64(M.schemaVersion))
    }
}
