import Foundation
import Testing

@testable import LogbookCRDT

// The direct JSON writer must write exactly JSONEncoder's bytes (sorted keys, slashes
// unescaped) for every change it writes, and leave the ones holding a double to JSONEncoder.
@Suite struct ChangeJSONFastWriterTests {
    typealias PlainChange = Change<String, String, Value>

    private func written(_ change: PlainChange, _ format: ChangeJSONFormat) -> [UInt8]? {
        var bytes: [UInt8] = []
        return ChangeJSONFastWriter.append(change, format: format, to: &bytes) ? bytes : nil
    }

    private func byFoundation(_ change: PlainChange, _ format: ChangeJSONFormat) throws -> [UInt8] {
        [UInt8](try ChangeJSON.encodeWithFoundation(change, format: format))
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyChangeItWritesIsJSONEncodersBytes(seed: UInt64) throws {
        var random = RandomPlainChanges.Generator(state: seed)
        var writtenCount = 0
        var leftWithDoubles = 0
        for _ in 0..<3_000 {
            let change = RandomPlainChanges.change(&random)
            for format in ChangeJSONFormat.allCases {
                guard let bytes = written(change, format) else {
                    #expect(change.value?.holdsDouble == true)
                    leftWithDoubles += 1
                    continue
                }
                writtenCount += 1
                let expected = try byFoundation(change, format)
                #expect(
                    bytes == expected,
                    "\(String(decoding: bytes, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))"
                )
            }
        }
        #expect(writtenCount > 4_000 && leftWithDoubles > 100)
    }

    @Test func everyControlCharacterAndTheKeyOrderOfObjects() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let value: Value = [
            "z": 1, "Z": 2, "é": 3, "a/b": "\\\"/", controls: [.null, true, [:], []],
            "": .bytes([0, 255, 7]), "日本": .int(Int64.min), "max": .int(Int64.max),
        ]
        let change = PlainChange(
            recordId: controls, colName: "\u{7F}\u{2028}🙂", value: value, colVersion: .max,
            dbVersion: 0, nodeId: .max, localDbVersion: 1, flags: .max)
        for format in ChangeJSONFormat.allCases {
            let bytes = try #require(written(change, format))
            #expect(bytes == (try byFoundation(change, format)))
        }
    }

    @Test func nullsAndAbsentValuesInBothForms() throws {
        let changes = [
            PlainChange(
                recordId: "r", colName: nil, value: nil, colVersion: 1, dbVersion: 1, nodeId: 1,
                localDbVersion: 1),
            PlainChange(
                recordId: "r", colName: "c", value: nil, colVersion: 1, dbVersion: 1, nodeId: 1,
                localDbVersion: 1),
            PlainChange(
                recordId: "r", colName: "c", value: .null, colVersion: 1, dbVersion: 1,
                nodeId: 1, localDbVersion: 1),
        ]
        for change in changes {
            for format in ChangeJSONFormat.allCases {
                #expect(try #require(written(change, format)) == (try byFoundation(change, format)))
            }
        }
    }

    @Test func aChangeHoldingADoubleGoesToJSONEncoder() throws {
        let change = PlainChange(
            recordId: "r", colName: "c", value: ["a": [1, 0.1]], colVersion: 1, dbVersion: 1,
            nodeId: 1, localDbVersion: 1)
        #expect(written(change, .swift) == nil)
        #expect(
            try ChangeJSON.encode(change)
                == (try ChangeJSON.encodeWithFoundation(change, format: .swift)))
    }
}
