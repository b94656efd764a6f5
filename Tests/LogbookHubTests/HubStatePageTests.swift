import Logbook
import LogbookCRDT
import Testing

@testable import LogbookHub

// `logbook_state_page` (migration 6): pages of a stream's state, whole records in the byte
// order of their ids, join to exactly the stream's state at every page size.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubStatePageTests {
    @Test func pagesJoinToTheStateInIdByteOrderAndNeverSplitARecord() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(
                named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 7)
            // Ids whose byte order differs from their length order and from a naive sort of
            // their first characters, several columns each, and deletions among them.
            let ids = ["b", "a", "ä", "aa", "z", "é", "日本", "a b", "Z", "10", "9"]
            var changes: [Change<String, String, Value>] = []
            for (index, id) in ids.enumerated() {
                changes += writer.insertOrUpdate(
                    id, fields: (0...(index % 3)).map { ("c\($0)", .int(Int64(index))) })
            }
            for id in ["aa", "日本", "9"] { changes += [try #require(writer.deleteRecord(id))] }
            _ = try await store.merge(changes, into: stream)
            let expected = writer.getChangesSince(0).count
            let reference = CRDT<String, String, Value>(nodeId: 98)
            reference.mergeChanges(writer.getChangesSince(0))
            let sortedIds = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

            for pageSize in [1, 2, 3, 5, 100] {
                var after: String?
                var read: [Change<String, String, Value>] = []
                var pages = 0
                repeat {
                    let page = try await store.statePage(
                        in: stream, after: after, changesMax: pageSize)
                    pages += 1
                    #expect(pages <= ids.count + 1, "page size \(pageSize) does not end")
                    guard pages <= ids.count + 1 else { break }
                    if let next = page.nextAfter {
                        #expect(page.changes.last?.recordId == next, "the page ends its record")
                    }
                    read += page.changes
                    after = page.nextAfter
                } while after != nil
                var readIds: [String] = []
                for id in read.map(\.recordId)
                where readIds.last.map({ !$0.utf8.elementsEqual(id.utf8) }) ?? true {
                    readIds.append(id)
                }
                #expect(readIds == sortedIds, "page size \(pageSize): ids in byte order, once each")
                #expect(read.count == expected, "page size \(pageSize)")
                let rebuilt = CRDT<String, String, Value>(nodeId: 99)
                rebuilt.mergeChanges(read)
                #expect(
                    StateDigest(of: rebuilt) == StateDigest(of: reference), "page size \(pageSize)")
            }
        }
    }
}
