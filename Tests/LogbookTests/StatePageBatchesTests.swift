import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// A state page in binary: what a node answers to `GET /snapshot?format=batches` decodes to
// the same changes, across several batches; a body that is damaged, numbered otherwise or
// announces more than the receiver accepts is refused whole.
@Suite struct StatePageBatchesTests {
    /// Changes of every kind, with values large enough that the page needs several batches.
    private func pageChanges(count: Int) -> [Change<String, String, Value>] {
        var random = SeededGenerator(seed: 77)
        return (0..<count).map { index in
            let id = "entity/é\(index / 3)"  // multibyte ids, three changes per record
            let version = UInt64(index + 1)
            switch index % 7 {
            case 5:
                return Change(
                    recordId: id, colName: "gone", value: nil, colVersion: 2, dbVersion: version,
                    nodeId: 3, localDbVersion: version)
            case 6:
                return Change(
                    recordId: id, colName: nil, value: nil, colVersion: .max, dbVersion: version,
                    nodeId: 4, localDbVersion: version)
            default:
                let text = String(
                    repeating: "v\(UInt32.random(in: 0...UInt32.max, using: &random))",
                    count: 2_000)
                return Change(
                    recordId: id, colName: "c\(index % 3)", value: .string(text), colVersion: 1,
                    dbVersion: version, nodeId: 2, localDbVersion: version, flags: 5)
            }
        }
    }

    @Test func aPageDecodesToTheChangesItWasEncodedFromAcrossBatches() throws {
        let changes = pageChanges(count: 300)
        let (bytes, batchCount) = StatePageBatches.encode(changes)
        #expect(batchCount > 1, "over 1 MiB of records closes more than one batch")
        #expect(try StatePageBatches.decode(bytes, rawBytesMax: 1 << 30) == changes)
        #expect(StatePageBatches.encode([]).bytes.isEmpty)
        #expect(try StatePageBatches.decode([], rawBytesMax: 0).isEmpty)
    }

    @Test func aDamagedPageIsRefusedWhole() throws {
        let (bytes, _) = StatePageBatches.encode(pageChanges(count: 40))
        var random = SeededGenerator(seed: 78)
        for _ in 0..<200 {
            var damaged = bytes
            let position = Int.random(in: 0..<damaged.count, using: &random)
            damaged[position] ^= UInt8.random(in: 1...255, using: &random)
            #expect(throws: ShippingFormatError.self) {
                try StatePageBatches.decode(damaged, rawBytesMax: 1 << 30)
            }
            let cut = Array(bytes.prefix(Int.random(in: 1..<bytes.count, using: &random)))
            #expect(throws: ShippingFormatError.self) {
                try StatePageBatches.decode(cut, rawBytesMax: 1 << 30)
            }
        }
    }

    @Test func aPageOverTheBoundOrNumberedOtherwiseIsRefused() throws {
        let changes = pageChanges(count: 40)
        let (bytes, _) = StatePageBatches.encode(changes)
        let announced = try ShippedBatchReader.announced(in: bytes)
        #expect(throws: ShippingFormatError.self) {
            try StatePageBatches.decode(bytes, rawBytesMax: announced.rawBytes - 1)
        }
        #expect(try StatePageBatches.decode(bytes, rawBytesMax: announced.rawBytes) == changes)
        // The same records at offsets 5, 6, …: well-formed batches, but not a state page.
        var shifted = ShippedBatchWriter()
        for (index, change) in changes.enumerated() { shifted.add(change, at: UInt64(index + 5)) }
        #expect(throws: ShippingFormatError.self) {
            try StatePageBatches.decode(shifted.finish(), rawBytesMax: 1 << 30)
        }
        // A gap after the first record.
        var gapped = ShippedBatchWriter()
        for (index, change) in changes.enumerated() {
            gapped.add(change, at: UInt64(index == 0 ? 0 : index + 1))
        }
        #expect(throws: ShippingFormatError.self) {
            try StatePageBatches.decode(gapped.finish(), rawBytesMax: 1 << 30)
        }
    }
}
