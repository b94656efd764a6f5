import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Ids and column names are stored in Unicode NFC (docs/decisions/0006-record-ids-in-nfc.md):
// a local write takes the NFC form of what it is given, a change from outside that is not
// NFC is refused, so two nodes given the two spellings of one id end with the same bytes.
@Suite struct CanonicalIdTests {
    /// "é" composed (U+00E9) and decomposed ("e" + U+0301): equal as Swift compares them,
    /// different bytes.
    static let composed = "entity/caf\u{E9}"
    static let decomposed = "entity/cafe\u{301}"
    static let composedColumn = "r\u{E9}sum\u{E9}"
    static let decomposedColumn = "re\u{301}sume\u{301}"

    private func open(_ directory: TemporaryDirectory, node: NodeId) throws -> Logbook {
        try Logbook.open(
            directory: directory.path, nodeId: node, options: smallLogOptions(.buffered))
    }

    @Test func theSpellingsAreEqualInSwiftAndDifferentInBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(!Self.composed.utf8.elementsEqual(Self.decomposed.utf8))
    }

    @Test func theCheckFindsADecomposedAccentWhereverItSits() {
        for length in 0..<20 {
            let prefix = String(repeating: "a", count: length)
            func refused(_ recordId: String) -> Bool {
                ChangeLimits.reasonToRefuse(
                    Change<String, String, Value>(
                        recordId: recordId, colName: "n", value: 1, colVersion: 1, dbVersion: 1,
                        nodeId: 2, localDbVersion: 1)) != nil
            }
            #expect(!refused(prefix + "z"), "ASCII of \(length + 1) bytes")
            #expect(!refused(prefix + "\u{E9}" + prefix), "composed after \(length) bytes")
            #expect(refused(prefix + "e\u{301}" + prefix), "decomposed after \(length) bytes")
        }
    }

    @Test func aLocalWriteStoresAndShipsTheComposedForm() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try open(directory, node: 1)
        let written = try await logbook.insertOrUpdate(
            Self.decomposed, fields: [(Self.decomposedColumn, "x"), ("plain", 1)])
        for change in written + logbook.getChangesSince(0) {
            #expect(change.recordId.utf8.elementsEqual(Self.composed.utf8))
        }
        #expect(
            written.contains { $0.colName?.utf8.elementsEqual(Self.composedColumn.utf8) == true })
        let deletion = try #require(
            try await logbook.deleteField(Self.decomposed, fieldName: Self.decomposedColumn))
        #expect(deletion.recordId.utf8.elementsEqual(Self.composed.utf8))
        #expect(deletion.colName?.utf8.elementsEqual(Self.composedColumn.utf8) == true)
        let removal = try #require(try await logbook.deleteRecord(Self.decomposed))
        #expect(removal.recordId.utf8.elementsEqual(Self.composed.utf8))
        // The log holds only the composed bytes: a reopen finds the same state.
        let digest = logbook.stateDigest()
        try logbook.close()
        let reopened = try open(directory, node: 1)
        #expect(reopened.stateDigest() == digest)
        for change in reopened.getChangesSince(0) {
            #expect(change.recordId.utf8.elementsEqual(Self.composed.utf8))
        }
        try reopened.close()
    }

    @Test func aChangeFromOutsideThatIsNotComposedIsRefusedAndNothingMerged() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try open(directory, node: 1)
        let good = Change<String, String, Value>(
            recordId: Self.composed, colName: Self.composedColumn, value: "ok", colVersion: 1,
            dbVersion: 1, nodeId: 7, localDbVersion: 1)
        var badId = good
        badId.recordId = Self.decomposed
        var badColumn = good
        badColumn.colName = Self.decomposedColumn
        for (bad, what) in [(badId, "record id"), (badColumn, "column name")] {
            do {
                _ = try await logbook.merge([good, bad])
                Issue.record("a decomposed \(what) was merged")
            } catch {
                #expect(error.code == .invalidChange)
                #expect(error.changeIndex == 1)
                #expect(error.message.contains("the \(what) is not in Unicode NFC"), "\(error)")
                #expect(error.message.contains("e\\u{0301}"), "the spelling is shown: \(error)")
            }
            #expect(logbook.records().isEmpty && logbook.clock().currentTime() == 0)
        }
        // The composed form, non-ASCII as it is, is merged.
        #expect(try await logbook.merge([good]).count == 1)
        #expect(
            ChangeLimits.reasonToRefuse(badId) != nil && ChangeLimits.reasonToRefuse(good) == nil)
        try logbook.close()
    }

    @Test func nodesWritingBothSpellingsEndWithTheSameBytes() async throws {
        let directories = [TemporaryDirectory(), TemporaryDirectory()]
        defer { for directory in directories { directory.remove() } }
        let a = try open(directories[0], node: 1)
        let b = try open(directories[1], node: 2)
        try await a.insertOrUpdate(Self.composed, fields: [("name", "from a")])
        try await b.insertOrUpdate(Self.decomposed, fields: [("name", "from b"), ("other", 2)])
        _ = try await a.merge(b.getChangesSince(0))
        _ = try await b.merge(a.getChangesSince(0))
        #expect(a.stateDigest() == b.stateDigest())
        for node in [a, b] {
            #expect(node.records().count == 1)
            let key = try #require(node.records().keys.first)
            #expect(key.utf8.elementsEqual(Self.composed.utf8))
        }
        try a.close()
        try b.close()
    }
}
