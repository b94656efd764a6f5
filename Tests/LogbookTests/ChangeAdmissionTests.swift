import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Every write path refuses what the log could not read back or what would break the clock,
// before anything is merged or logged, and stays writable afterwards. For each limit the
// largest admitted change round-trips through the log and the first refused one names the
// limit. Local writes and merges are the two doors (importers, `append`, `POST /changes`
// and peers all merge or write through them).
@Suite struct ChangeAdmissionTests {
    typealias StringChange = Change<String, String, Value>

    private func change(
        _ recordId: String = "e/x", column: String? = "n", value: Value? = .string("X"),
        colVersion: UInt64 = 1, dbVersion: UInt64 = 1
    ) -> StringChange {
        StringChange(
            recordId: recordId, colName: column, value: column == nil ? nil : value,
            colVersion: column == nil ? tombstoneColumnVersion : colVersion,
            dbVersion: dbVersion, nodeId: 9, localDbVersion: 1)
    }

    private func expectRefused(
        _ code: LogbookError.Code, naming limit: String,
        _ body: () async throws(LogbookError) -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected a refusal naming \(limit)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.message.contains(limit), "\(error)")
        }
    }

    // MARK: Versions

    @Test(arguments: [UInt64.max, UInt64.max - 1, ChangeLimits.versionMax + 1])
    func aDbVersionOverTheLimitIsRefusedAndTheReplicaStaysWritable(dbVersion: UInt64)
        async throws
    {
        try await withReopenCheckedLogbook { logbook in
            try await logbook.insertOrUpdate("e/a", fields: [("n", 1)])
            let before = (logbook.stateDigest(), logbook.clock(), logbook.nextOffset)
            let batch = [change("e/ok"), change(dbVersion: dbVersion)]
            do throws(LogbookError) {
                try await logbook.merge(batch)
                Issue.record("dbVersion \(dbVersion) was accepted")
            } catch {
                #expect(error.code == .invalidChange)
                #expect(error.changeIndex == 1)
                #expect(error.message.contains("change 2 of 2"), "\(error)")
                #expect(error.message.contains("ChangeLimits.versionMax"), "\(error)")
            }
            #expect(logbook.stateDigest() == before.0, "nothing of the batch was merged")
            #expect(logbook.clock() == before.1)
            #expect(logbook.nextOffset == before.2, "nothing was logged")
            try await logbook.insertOrUpdate("e/a", fields: [("n", 2)])
        }
    }

    @Test func aColumnVersionOverTheLimitIsRefused() async throws {
        try await withReopenCheckedLogbook { logbook in
            await expectRefused(.invalidChange, naming: "ChangeLimits.versionMax") {
                () throws(LogbookError) in
                try await logbook.merge([change(colVersion: ChangeLimits.versionMax + 1)])
            }
            try await logbook.insertOrUpdate("e/x", fields: [("n", 2)])
        }
    }

    @Test func theLargestVersionsAreAdmittedAndDoNotPinTheClock() async throws {
        try await withReopenCheckedLogbook { logbook in
            // From a peer's log: a client's are held to the door (`ClientVersionDoorTests`).
            let top = change(colVersion: ChangeLimits.versionMax - 1, dbVersion: .init(Int64.max))
            let merged = try await logbook.mergeLocated(
                [top, change("e/gone", column: nil)], from: .peer)
            #expect(merged.acceptedCount == 2)
            let followed = LogicalClock.followFloor + LogicalClock.followLead
            #expect(logbook.clock().currentTime() <= followed + 2)
            // The column takes one more write (to versionMax), then refuses, alone.
            let last = try await logbook.insertOrUpdate("e/x", fields: [("n", "mine")])
            #expect(last.first?.colVersion == ChangeLimits.versionMax)
            let clock = logbook.clock().currentTime()
            await expectRefused(.limitExceeded, naming: "ChangeLimits.versionMax") {
                () throws(LogbookError) in
                try await logbook.insertOrUpdate("e/x", fields: [("other", 0), ("n", "again")])
            }
            await expectRefused(.limitExceeded, naming: "ChangeLimits.versionMax") {
                () throws(LogbookError) in
                try await logbook.deleteField("e/x", fieldName: "n")
            }
            #expect(logbook.clock().currentTime() == clock, "a refused write ticks no clock")
            #expect(logbook.getRecord("e/x")?.field("other") == nil)
            try await logbook.insertOrUpdate("e/x", fields: [("other", 1)])
            try await logbook.merge([change("e/y", dbVersion: 5)])
            #expect(logbook.getRecord("e/x")?.field("n") == "mine")
        }
    }

    // MARK: Sizes and depth

    struct Limit: CustomTestStringConvertible, Sendable {
        var name: String
        /// The change at the limit, and the first one past it.
        var largest: @Sendable () -> (String, String, Value)
        var firstRefused: @Sendable () -> (String, String, Value)
        /// Told apart from another case of the same limit.
        var variant = ""
        var testDescription: String { variant.isEmpty ? name : "\(name), \(variant)" }
    }

    static let limits: [Limit] = [
        Limit(
            name: "ChangeLimits.valueDepthMax",
            largest: { ("e/d", "n", nestedValue(ChangeLimits.valueDepthMax)) },
            firstRefused: { ("e/d", "n", nestedValue(ChangeLimits.valueDepthMax + 1)) }),
        Limit(
            name: "ChangeLimits.recordIdSizeMax",
            largest: { (String(repeating: "é", count: ChangeLimits.recordIdSizeMax / 2), "n", 1) },
            firstRefused: {
                (String(repeating: "i", count: ChangeLimits.recordIdSizeMax + 1), "n", 1)
            }),
        Limit(
            name: "ChangeLimits.columnNameSizeMax",
            largest: { ("e/c", String(repeating: "c", count: ChangeLimits.columnNameSizeMax), 1) },
            firstRefused: {
                ("e/c", String(repeating: "c", count: ChangeLimits.columnNameSizeMax + 1), 1)
            }),
        Limit(
            name: "ChangeLimits.valueSizeMax",
            largest: { ("e/v", "n", bytesOfEncodedSize(ChangeLimits.valueSizeMax)) },
            firstRefused: { ("e/v", "n", bytesOfEncodedSize(ChangeLimits.valueSizeMax + 1)) }),
        // A string is a scalar: a local write checks it in place, not by the values' walk.
        Limit(
            name: "ChangeLimits.valueSizeMax",
            largest: { ("e/s", "n", stringOfEncodedSize(ChangeLimits.valueSizeMax)) },
            firstRefused: { ("e/s", "n", stringOfEncodedSize(ChangeLimits.valueSizeMax + 1)) },
            variant: "a string"),
    ]

    @Test(arguments: limits)
    func theLargestLocalWriteRoundTripsAndTheNextIsRefused(limit: Limit) async throws {
        try await withReopenCheckedLogbook { logbook in
            let (recordId, column, value) = limit.largest()
            try await logbook.insertOrUpdate(recordId, fields: [(column, value)])
            #expect(logbook.getRecord(recordId)?.field(column) == value)
            let (refusedId, refusedColumn, refusedValue) = limit.firstRefused()
            let before = logbook.nextOffset
            await expectRefused(.invalidChange, naming: limit.name) { () throws(LogbookError) in
                try await logbook.insertOrUpdate(refusedId, fields: [(refusedColumn, refusedValue)])
            }
            #expect(logbook.nextOffset == before)
            try await logbook.insertOrUpdate("e/after", fields: [("n", 1)])
        }
    }

    @Test(arguments: limits)
    func theLargestRemoteChangeRoundTripsAndTheNextIsRefused(limit: Limit) async throws {
        try await withReopenCheckedLogbook { logbook in
            let (recordId, column, value) = limit.largest()
            #expect(
                try await logbook.merge([change(recordId, column: column, value: value)]).count == 1
            )
            let (refusedId, refusedColumn, refusedValue) = limit.firstRefused()
            await expectRefused(.invalidChange, naming: limit.name) { () throws(LogbookError) in
                try await logbook.merge([
                    change(refusedId, column: refusedColumn, value: refusedValue)
                ])
            }
            try await logbook.insertOrUpdate("e/after", fields: [("n", 1)])
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteNumberIsRefused(number: Double) async throws {
        try await withReopenCheckedLogbook { logbook in
            await expectRefused(.invalidChange, naming: "NaN or infinite") {
                () throws(LogbookError) in
                try await logbook.insertOrUpdate("e/n", fields: [("n", .array([.double(number)]))])
            }
            await expectRefused(.invalidChange, naming: "NaN or infinite") {
                () throws(LogbookError) in
                try await logbook.insertOrUpdate("e/n", fields: [("n", .double(number))])
            }
            await expectRefused(.invalidChange, naming: "NaN or infinite") {
                () throws(LogbookError) in
                try await logbook.merge([change(value: .double(number))])
            }
        }
    }

    /// An integer that fits Int64 has one spelling, `.int`: `.unsigned` below 2^63 is refused
    /// by a local write, a batch and a merge (POST, append, a peer and the hub merge through
    /// the same check), and at 2^63 it is taken.
    @Test(arguments: [0, 5, UInt64(Int64.max)] as [UInt64])
    func anUnsignedThatFitsInt64IsRefusedEverywhere(number: UInt64) async throws {
        try await withReopenCheckedLogbook { logbook in
            await expectRefused(.invalidChange, naming: "Value.unsigned") {
                () throws(LogbookError) in
                try await logbook.insertOrUpdate("e/n", fields: [("n", .unsigned(number))])
            }
            await expectRefused(.invalidChange, naming: "Value.unsigned") {
                () throws(LogbookError) in
                _ = try await logbook.write([
                    .insertOrUpdate("e/n", fields: [("n", ["k": .unsigned(number)])])
                ])
            }
            await expectRefused(.invalidChange, naming: "Value.unsigned") {
                () throws(LogbookError) in
                try await logbook.merge([change(value: .array([.unsigned(number)]))])
            }
            try await logbook.insertOrUpdate("e/n", fields: [("n", .unsigned(number + (1 << 63)))])
            #expect(logbook.getRecord("e/n")?.fields["n"] == .unsigned(number + (1 << 63)))
        }
    }

    @Test func deletionsCheckTheirIdAndColumnToo() async throws {
        try await withReopenCheckedLogbook { logbook in
            let long = String(repeating: "x", count: ChangeLimits.recordIdSizeMax + 1)
            await expectRefused(.invalidChange, naming: "ChangeLimits.recordIdSizeMax") {
                () throws(LogbookError) in _ = try await logbook.deleteRecord(long)
            }
            await expectRefused(.invalidChange, naming: "ChangeLimits.recordIdSizeMax") {
                () throws(LogbookError) in try await logbook.merge([change(long, column: nil)])
            }
            await expectRefused(.invalidChange, naming: "ChangeLimits.columnNameSizeMax") {
                () throws(LogbookError) in
                _ = try await logbook.deleteField("e/x", fieldName: long)
            }
        }
    }

    // MARK: The decoder uses the same constants

    @Test func theDecoderRefusesWhatTheWritersRefuse() {
        let longId = String(repeating: "i", count: ChangeLimits.recordIdSizeMax + 1)
        let longColumn = String(repeating: "c", count: ChangeLimits.columnNameSizeMax + 1)
        for (refused, accepted) in [
            (change(longId), change(String(longId.dropLast()))),
            (change(column: longColumn), change(column: String(longColumn.dropLast()))),
            (
                change(value: nestedValue(ChangeLimits.valueDepthMax + 1)),
                change(value: nestedValue(ChangeLimits.valueDepthMax))
            ),
        ] {
            #expect(decodes(refused) == false)
            #expect(decodes(accepted) == true)
        }
    }

    @Test func everyAdmittedChangeFitsALogRecord() {
        #expect(ChangeLimits.valueSizeMax < Limits.recordSizeMax)
        var bytes: [UInt8] = []
        let largest = StringChange(
            recordId: String(repeating: "i", count: ChangeLimits.recordIdSizeMax),
            colName: String(repeating: "c", count: ChangeLimits.columnNameSizeMax),
            value: bytesOfEncodedSize(ChangeLimits.valueSizeMax), colVersion: .init(Int64.max),
            dbVersion: .init(Int64.max), nodeId: .max, localDbVersion: .init(Int64.max),
            flags: .max)
        ChangeRecordCodec.encode(.change(largest), into: &bytes)
        #expect(bytes.count <= Limits.recordSizeMax)
        #expect(decodes(largest) == true)
    }

    private func decodes(_ change: StringChange) -> Bool {
        var bytes: [UInt8] = []
        ChangeRecordCodec.encode(.change(change), into: &bytes)
        return bytes.withUnsafeBytes { raw in
            if case .success = ChangeRecordCodec.decode(raw) { return true }
            return false
        }
    }
}

/// A value nested `depth` levels below the top (a scalar at that depth).
func nestedValue(_ depth: Int) -> Value {
    (0..<depth).reduce(Value.int(1)) { inner, _ in .array([inner]) }
}

/// A bytes value whose encoding is exactly `size` bytes (tag, varint count, bytes).
func bytesOfEncodedSize(_ size: Int) -> Value {
    .bytes([UInt8](repeating: 0xAB, count: payloadCount(encodedIn: size)))
}

/// A string value whose encoding takes `size` bytes (or one less, where a length's varint
/// grows by a byte).
func stringOfEncodedSize(_ size: Int) -> Value {
    .string(String(repeating: "s", count: payloadCount(encodedIn: size)))
}

/// The most bytes a tagged, length-prefixed payload (bytes or a string) holds in `size`.
private func payloadCount(encodedIn size: Int) -> Int {
    func varintSize(_ value: Int) -> Int { max(1, (64 - value.leadingZeroBitCount + 6) / 7) }
    var count = size - 2
    while 1 + varintSize(count) + count > size { count -= 1 }
    while 1 + varintSize(count + 1) + count + 1 <= size { count += 1 }
    return count
}
