import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Every write entry point fed seeded hostile input: versions spread over the whole UInt64
// range, ids, column names and nesting around their limits, an occasional value at the
// size limit. Each call is accepted exactly when a model of the limits says so; a refused
// call changes nothing; the log reopens to the same digest and clock; a normal write
// always works afterwards. (Importers, `append` and the HTTP and peer paths reach these
// same four methods.)
@Suite struct WriteEntryPointPropertyTests {
    typealias StringChange = Change<String, String, Value>

    /// Picks sizes and versions around the interesting edges.
    struct HostileInput {
        var random: SeededGenerator
        var largeValuesLeft = 2

        mutating func version() -> UInt64 {
            let edges: [UInt64] = [
                0, 1, 2, 1 << 62, (1 << 62) + 1, (1 << 62) + (1 << 32),
                (1 << 62) + (1 << 32) + 1, ChangeLimits.versionMax - 1,
                ChangeLimits.versionMax, ChangeLimits.versionMax + 1, .max - 1, .max,
            ]
            return random.chance(0.6)
                ? UInt64.random(in: 1...50, using: &random)
                : random.chance(0.7)
                    ? edges.randomElement(using: &random) ?? 0 : random.next()
        }

        mutating func name(limit: Int) -> String {
            let lengths = [1, 8, limit - 1, limit, limit + 1]
            let length = random.chance(0.8) ? 8 : lengths.randomElement(using: &random) ?? 1
            // Two-byte characters now and then, so bytes and characters differ.
            if random.chance(0.3) && length > 1 {
                return String(repeating: "é", count: length / 2) + (length % 2 == 1 ? "x" : "")
            }
            return "n" + String(UInt64.random(in: 0...4, using: &random))
                + String(
                    repeating: "x", count: max(0, length - 2))
        }

        mutating func value() -> Value {
            if largeValuesLeft > 0 && random.chance(0.03) {
                largeValuesLeft -= 1
                let size = ChangeLimits.valueSizeMax + (random.chance(0.5) ? 0 : 1)
                return .bytes([UInt8](repeating: 7, count: size - 5))  // tag + 4-byte count
            }
            if random.chance(0.2) {
                let depths = [
                    1, ChangeLimits.valueDepthMax - 1, ChangeLimits.valueDepthMax,
                    ChangeLimits.valueDepthMax + 1,
                ]
                let depth = depths.randomElement(using: &random) ?? 1
                return (0..<depth).reduce(Value.int(1)) { inner, _ in .array([inner]) }
            }
            if random.chance(0.05) { return .double(.nan) }
            return .int(Int64.random(in: -9...9, using: &random))
        }

        mutating func change() -> StringChange {
            let deletion = random.chance(0.1)
            let recordId = "r/" + name(limit: ChangeLimits.recordIdSizeMax - 2)
            return StringChange(
                recordId: recordId,
                colName: deletion ? nil : name(limit: ChangeLimits.columnNameSizeMax),
                value: deletion ? nil : value(), colVersion: deletion ? .max : version(),
                dbVersion: version(), nodeId: UInt64.random(in: 2...5, using: &random),
                localDbVersion: random.next())
        }
    }

    /// The model: whether a change keeps every stateless bound, and its versions are at
    /// most `door` (`ChangeLimits.clientVersionMax` of the clock before the call).
    static func withinLimits(_ change: StringChange, door: UInt64) -> Bool {
        guard change.dbVersion <= door,
            change.recordId.utf8.count <= ChangeLimits.recordIdSizeMax
        else { return false }
        guard let column = change.colName else { return true }
        guard change.colVersion <= door,
            column.utf8.count <= ChangeLimits.columnNameSizeMax
        else { return false }
        return change.value.map(valueWithinLimits) ?? true
    }

    static func valueWithinLimits(_ value: Value) -> Bool {
        ValueCodec.encodedSize(of: value).map { _ in true }.get(or: false)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyEntryPointRefusesExactlyWhatBreaksALimitAndStaysWritable(seed: UInt64)
        async throws
    {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(.buffered, fileSystem: fileSystem, batchSizeTarget: 4096)
        var logbook = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        var input = HostileInput(random: SeededGenerator(seed: seed))
        var refusals = 0
        for step in 0..<120 {
            let before = (logbook.stateDigest(), logbook.clock())
            let entry = Int.random(in: 0..<4, using: &input.random)
            let changes = (0..<Int.random(in: 1...3, using: &input.random)).map { _ in
                input.change()
            }
            let first = changes[0]
            let expected: Bool
            do {
                switch entry {
                case 0:
                    try await logbook.merge(changes)
                    let door = ChangeLimits.clientVersionMax(clock: before.1.currentTime())
                    expected = changes.allSatisfy { Self.withinLimits($0, door: door) }
                case 1:
                    let fields = changes.compactMap { change in
                        change.colName.map { ($0, change.value ?? .null) }
                    }
                    let versions = fields.map {
                        logbook.getRecord(first.recordId)?.columnVersion($0.0)
                    }
                    try await logbook.insertOrUpdate(first.recordId, fields: fields)
                    expected =
                        first.recordId.utf8.count <= ChangeLimits.recordIdSizeMax
                        && fields.allSatisfy {
                            $0.0.utf8.count <= ChangeLimits.columnNameSizeMax
                                && Self.valueWithinLimits($0.1)
                        }
                        && versions.allSatisfy { ($0?.colVersion ?? 0) < ChangeLimits.versionMax }
                case 2:
                    try await logbook.deleteRecord(first.recordId)
                    expected = first.recordId.utf8.count <= ChangeLimits.recordIdSizeMax
                default:
                    let column = first.colName ?? "c"
                    let version = logbook.getRecord(first.recordId)?.columnVersion(column)
                    try await logbook.deleteField(first.recordId, fieldName: column)
                    expected =
                        first.recordId.utf8.count <= ChangeLimits.recordIdSizeMax
                        && column.utf8.count <= ChangeLimits.columnNameSizeMax
                        && (version?.colVersion ?? 0) < ChangeLimits.versionMax
                }
                #expect(expected, "seed=\(seed) step=\(step): accepted what the model refuses")
            } catch {
                refusals += 1
                #expect(
                    error.code == .invalidChange || error.code == .limitExceeded,
                    "seed=\(seed) step=\(step): \(error)")
                #expect(error.message.contains("ChangeLimits") || error.message.contains("NaN"))
                #expect(logbook.stateDigest() == before.0, "seed=\(seed) step=\(step)")
                #expect(logbook.clock() == before.1, "seed=\(seed) step=\(step)")
            }
            if step % 30 == 29 {
                let digest = logbook.stateDigest()
                let clock = logbook.clock()
                try logbook.close()
                logbook = try Logbook.open(directory: "/node", options: options)
                #expect(logbook.stateDigest() == digest, "seed=\(seed) step=\(step)")
                #expect(logbook.clock() == clock, "seed=\(seed) step=\(step)")
            }
            try await logbook.insertOrUpdate("normal/\(step)", fields: [("n", 1)])
        }
        #expect(refusals > 10, "seed=\(seed): the inputs must reach the limits")
        try logbook.close()
    }
}

extension Result {
    /// The success value, or `fallback` on failure.
    fileprivate func get(or fallback: Success) -> Success {
        (try? get()) ?? fallback
    }
}
