import Foundation
import LogbookCRDT
import LogbookTesting
import Testing

@testable import Logbook

// Compaction's pass 1 in pieces: the 16-byte-slot table stays dense and loses nothing as it
// grows; numbering gives each distinct string one number; the look-ahead ring is first in,
// first out; `LiveSet` picks the CRDT winner (not the later offset) on ties and beyond its
// packed column versions, reading the winner back from the log; and several threads mark
// exactly what one thread marks.
@Suite struct WinnerSearchTests {
    @Test func theTableKeepsEveryEntryAndStaysDenseAsItGrows() {
        let table = PackedHashTable()
        let count = 100_000
        for index in 0..<count {
            let key = UInt64(index) &* 7919
            let (slot, found) = table.locate(key)
            #expect(!found)
            table.insert(key, UInt64(index), at: slot)
        }
        #expect(table.count == count)
        for index in 0..<count {
            let (slot, found) = table.locate(UInt64(index) &* 7919)
            #expect(found && table.value(at: slot) == UInt64(index), "entry \(index)")
        }
        #expect(!table.locate(UInt64(count) &* 7919).found)
        // Growth by half keeps the table between 57 and 85 percent full: 19 to 28 bytes per
        // entry, under the 32 the compaction issue allows.
        let bytesPerEntry = Double(table.bytes) / Double(count)
        #expect(bytesPerEntry >= 18.8 && bytesPerEntry <= 28.1, "\(bytesPerEntry) B per entry")
    }

    @Test func equalKeysAreToldApartByTheCallersTest() {
        let table = PackedHashTable()
        for check in UInt64(1)...3 {
            let (slot, found) = table.locate(42) { $0 == check }
            #expect(!found)
            table.insert(42, check, at: slot)
        }
        for check in UInt64(1)...3 {
            let (slot, found) = table.locate(42) { $0 == check }
            #expect(found && table.value(at: slot) == check)
        }
        #expect(!table.locate(42) { $0 == 4 }.found)
    }

    @Test func numberingGivesEachDistinctStringOneDenseNumber() {
        let numbering = KeyNumbering()
        // Every length from 0 to 40 (the hash's word loop and all its tail paths), strings
        // that differ in one byte at every position.
        var strings: [[UInt8]] = []
        for length in 0...40 {
            for position in 0..<max(1, length) {
                for byte in UInt8(0)..<4 {
                    var string = [UInt8](repeating: 97, count: length)
                    if length > 0 { string[position] = 97 + byte }
                    strings.append(string)
                }
            }
        }
        var numbers: [[UInt8]: UInt32] = [:]
        for string in strings + strings.reversed() {
            let numbered = string.withUnsafeBytes { numbering.number(of: $0) }
            if let known = numbers[string] {
                #expect(!numbered.isNew && numbered.number == known, "\(string)")
                // Strings of even length were marked when first numbered.
                #expect(numbered.isMarked == (string.count % 2 == 0), "\(string)")
            } else {
                #expect(numbered.isNew && numbered.number == UInt32(numbers.count), "\(string)")
                #expect(!numbered.isMarked)
                if string.count % 2 == 0 { numbering.mark(numbered) }
                numbers[string] = numbered.number
            }
        }
        #expect(numbering.count == numbers.count)
    }

    @Test func theRingIsFirstInFirstOutAcrossItsWrap() {
        var ring = FixedRing(capacity: 3, filler: 0)
        var expected: [Int] = []
        var next = 0
        for step in 0..<50 {
            if ring.isFull || (step % 3 == 2 && !ring.isEmpty) {
                #expect(ring.removeFirst() == expected.removeFirst())
            } else {
                ring.append(next)
                expected.append(next)
                next += 1
            }
            #expect(ring.count == expected.count)
        }
    }

    /// A change to record "r", column "c".
    private func change(col: UInt64, db: UInt64, node: NodeId) -> ChangeRecord {
        .change(
            Change(
                recordId: "r", colName: "c", value: .int(1), colVersion: col, dbVersion: db,
                nodeId: node, localDbVersion: db))
    }

    /// Runs pass 1 over `records` (offsets 0, 1, ...) remembering the versions of the last
    /// `recent` offsets; returns the dead offsets, the offsets read back and the ties settled
    /// in memory.
    private func deadOffsets(_ records: [ChangeRecord], recent: Int = 1) throws -> (
        dead: [UInt64], readBack: [UInt64], inMemory: Int
    ) {
        let readBack = ReadBackLog()
        var live = LiveSet(
            origin: 0, base: 0, sealedEnd: UInt64(records.count), recentCapacity: recent
        ) { (offset) throws(LogbookError) in
            readBack.offsets.append(offset)
            guard case .change(let change) = records[Int(offset)] else {
                throw LogbookError(.corruption, "not a change", logOffset: offset)
            }
            return (change.colVersion, change.dbVersion, change.nodeId)
        }
        for (offset, record) in records.enumerated() {
            var bytes: [UInt8] = []
            ChangeRecordCodec.encode(record, into: &bytes)
            let failure: LogbookError? = bytes.withUnsafeBytes { raw in
                guard let key = ChangeRecordCodec.readKey(raw) else {
                    return LogbookError(.corruption, "unreadable", logOffset: UInt64(offset))
                }
                do throws(LogbookError) { try live.note(key, at: UInt64(offset)) } catch {
                    return error
                }
                return nil
            }
            if let failure { throw failure }
        }
        try live.finish()
        return (
            (0..<UInt64(records.count)).filter { !live.isLive($0) }, readBack.offsets,
            live.tiesSettledInMemory
        )
    }

    private final class ReadBackLog: @unchecked Sendable {
        var offsets: [UInt64] = []
    }

    @Test func aLaterChangeThatLosesATieIsTheOneDropped() throws {
        // Equal column versions: dbVersion decides, then the node. With one offset
        // remembered (the latest, never the winner's) the winner's versions come back from
        // the log; with the default window they are still in memory. Same outcome.
        let changes = [
            change(col: 3, db: 10, node: 2),
            change(col: 3, db: 10, node: 1),  // loses on the node
            change(col: 3, db: 9, node: 9),  // loses on dbVersion
            change(col: 3, db: 11, node: 1),  // wins on dbVersion
        ]
        let (dead, readBack, inMemory) = try deadOffsets(changes)
        // Offset 0 lost to offset 3 but stays: it is where record r was first created.
        #expect(dead == [1, 2])
        #expect(readBack == [0, 0, 0] && inMemory == 0)
        let remembered = try deadOffsets(changes, recent: 1 << 16)
        #expect(remembered.dead == dead)
        #expect(remembered.readBack.isEmpty && remembered.inMemory == 3)
    }

    @Test func tiesAcrossTheRememberedWindowAreReadBackAndSettleAlike() throws {
        // A key written by two nodes in turn, each tie 40 offsets after its winner; other
        // keys in between. A window of 64 offsets holds every winner, one of 32 none.
        var records: [ChangeRecord] = []
        for round in UInt64(0)..<20 {
            records.append(change(col: 1 + round, db: 2 * round, node: 1))
            for filler in 0..<39 {
                records.append(
                    .change(
                        Change(
                            recordId: "other\(filler)", colName: "c", value: .int(1),
                            colVersion: 1 + round, dbVersion: 1, nodeId: 1, localDbVersion: 1)))
            }
            // Same column version as the change 40 offsets before, a higher dbVersion: wins.
            records.append(change(col: 1 + round, db: 2 * round + 1, node: 2))
        }
        let wide = try deadOffsets(records, recent: 64)
        let narrow = try deadOffsets(records, recent: 32)
        #expect(wide.dead == narrow.dead)
        #expect(wide.readBack.isEmpty && wide.inMemory > 0)
        #expect(narrow.inMemory == 0 && narrow.readBack.count == wide.inMemory)
    }

    @Test func columnVersionsDecideWithoutReadingBack() throws {
        let (dead, readBack, _) = try deadOffsets([
            change(col: 5, db: 1, node: 1),
            change(col: 4, db: 2, node: 1),  // an older column version logged later
            change(col: 6, db: 3, node: 1),
        ])
        #expect(dead == [1])  // offset 0 lost, but stays as record r's creation
        #expect(readBack.isEmpty)
    }

    @Test func columnVersionsBeyondThePackedWidthAreComparedExactly() throws {
        let big = UInt64(1) << 30
        let (dead, readBack, _) = try deadOffsets([
            change(col: big + 5, db: 1, node: 1),
            change(col: big + 3, db: 2, node: 1),  // both beyond 2^24: read back, loses
            change(col: 7, db: 3, node: 1),  // below the cap: loses without reading back
            change(col: big + 6, db: 4, node: 1),  // read back, wins
        ])
        #expect(dead == [1, 2])  // offset 0 lost, but stays as record r's creation
        #expect(readBack == [0, 0])
    }

    @Test func aDeletionShadowsTheWinnersBeforeIt() throws {
        let deletion = ChangeRecord.change(
            Change(
                recordId: "r", colName: nil, value: nil, colVersion: 1, dbVersion: 3, nodeId: 1,
                localDbVersion: 3))
        let (dead, _, _) = try deadOffsets([
            change(col: 1, db: 1, node: 1), change(col: 2, db: 2, node: 1), deletion,
        ])
        #expect(dead == [0, 1])
    }
}
