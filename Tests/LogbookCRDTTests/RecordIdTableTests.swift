import Testing

@testable import LogbookCRDT

// The id table keeps no ids: the caller confirms each candidate. Ids whose hashes collide
// must still get their own numbers, before and after the table grows.
@Suite struct RecordIdTableTests {
    @Test func collidingHashesKeepTheirOwnNumbersThroughGrowth() {
        var table = RecordIdTable()
        var ids: [String] = []
        func numberOf(_ id: String, hash: UInt64) -> Int {
            switch table.locate(hash, where: { ids[$0] == id }) {
            case .found(let number): return number
            case .vacant(let slot):
                table.insert(ids.count, forHash: hash, at: slot)
                return ids.count
            }
        }
        // 3,000 ids share 30 hashes, well past the first capacity of 1,024 slots.
        for index in 0..<3_000 {
            let id = "id-\(index)"
            let number = numberOf(id, hash: UInt64(index % 30))
            #expect(number == ids.count)
            ids.append(id)
        }
        #expect(table.count == 3_000)
        #expect(table.slots.count >= 4_096)
        for (number, id) in ids.enumerated() {
            #expect(table.number(forHash: UInt64(number % 30)) { ids[$0] == id } == number)
            #expect(numberOf(id, hash: UInt64(number % 30)) == number)
        }
        #expect(table.number(forHash: 5) { _ in false } == nil)
        #expect(table.count == 3_000)
    }

    /// Removing shifts later slots back along their probes: every id left is still found,
    /// every removed one is not, and new ids fill the freed slots.
    @Test func removedNumbersAreGoneAndTheRestAreStillFound() {
        var table = RecordIdTable()
        var ids: [String?] = []
        func locate(_ id: String, hash: UInt64) -> RecordIdTable.Location {
            table.locate(hash, where: { ids[$0] == id })
        }
        for index in 0..<2_000 {
            guard case .vacant(let slot) = locate("id-\(index)", hash: UInt64(index % 40)) else {
                Issue.record("id-\(index) found before it was inserted")
                return
            }
            table.insert(index, forHash: UInt64(index % 40), at: slot)
            ids.append("id-\(index)")
        }
        for index in stride(from: 0, to: 2_000, by: 3) {
            let removed = table.remove(index, forHash: UInt64(index % 40))
            #expect(removed)
            ids[index] = nil
        }
        let removedTwice = table.remove(0, forHash: 0)
        #expect(!removedTwice)
        #expect(table.count == 2_000 - 667)
        for index in 0..<2_000 {
            let found = table.number(forHash: UInt64(index % 40)) { ids[$0] == "id-\(index)" }
            #expect(found == (index % 3 == 0 ? nil : index), "id-\(index)")
        }
    }
}
