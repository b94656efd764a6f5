import Foundation
import Testing

@testable import LogbookCRDT

// The direct JSON writer must write exactly JSONEncoder's bytes (sorted keys, slashes
// unescaped) for every change without a double; a change with one (which JSONEncoder would
// write as an integer when it is whole) must read back as itself, and as JSONDecoder reads
// a fractional number.
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
        var withDoubles = 0
        for _ in 0..<3_000 {
            let change = RandomPlainChanges.change(&random)
            for format in ChangeJSONFormat.allCases {
                let bytes = try #require(written(change, format))
                if change.value.map(holdsDouble) == true {
                    withDoubles += 1
                    #expect(try ChangeJSON.decode(Data(bytes)) == change)
                    #expect(try JSONDecoder().decode(PlainChange.self, from: Data(bytes)) == change)
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
        #expect(writtenCount > 4_000 && withDoubles > 100)
    }

    private func holdsDouble(_ value: Value) -> Bool {
        switch value {
        case .double: true
        case .array(let elements): elements.contains(where: holdsDouble)
        case .object(let members): members.values.contains(where: holdsDouble)
        default: false
        }
    }

    @Test func aDoubleIsWrittenWithAFractionOrAnExponentAndReadsBackToItsBits() throws {
        let doubles: [Double] = [
            22.0, -0.0, 0.0, 1.0, 100.0, 1e20, 9.3e18, 0x1p63, 0x1p64, -0x1p63,
            .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, 2.2250738585072014e-308, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, 0.1, 1e-7, 123456789012345680.0, 9007199254740993.0,
        ]
        for double in doubles {
            let change = PlainChange(
                recordId: "r", colName: "c", value: .double(double), colVersion: 1, dbVersion: 1,
                nodeId: 1, localDbVersion: 1)
            for format in ChangeJSONFormat.allCases {
                let bytes = try #require(written(change, format))
                let text = String(decoding: bytes, as: UTF8.self)
                let number = try #require(text.split(separator: "\"value\":").last?.dropLast())
                #expect(number.contains(".") || number.contains("e"), "\(number)")
                let read = try ChangeJSON.decode(Data(bytes)) as PlainChange
                guard case .double(let back)? = read.value else {
                    Issue.record("\(double) read back as \(String(describing: read.value))")
                    continue
                }
                #expect(back.bitPattern == double.bitPattern, "\(double) -> \(number)")
            }
        }
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

    @Test func onlyANonFiniteDoubleGoesToJSONEncoderWhichRefusesIt() throws {
        for double in [Double.nan, .infinity, -.infinity] {
            let change = PlainChange(
                recordId: "r", colName: "c", value: ["a": [1, .double(double)]], colVersion: 1,
                dbVersion: 1, nodeId: 1, localDbVersion: 1)
            #expect(written(change, .swift) == nil)
            #expect(throws: ChangeJSONError.self) { try ChangeJSON.encode(change) }
        }
        let unsigned = PlainChange(
            recordId: "r", colName: "c", value: [.unsigned(.max), .int(.min)], colVersion: 1,
            dbVersion: 1, nodeId: 1, localDbVersion: 1)
        let text = String(decoding: try #require(written(unsigned, .rust)), as: UTF8.self)
        #expect(text.hasSuffix(#""value":[18446744073709551615,-9223372036854775808]}"#))
    }
}
