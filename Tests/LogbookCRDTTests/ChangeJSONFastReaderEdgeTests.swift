import Foundation
import Testing

@testable import LogbookCRDT

// The in-place reader's shortcuts at their edges: strings scanned eight bytes at a time,
// keys matched as bytes, integers summed from their digits, lines found with memchr. On
// each input without a number whose kind Foundation loses it must give exactly what
// JSONDecoder gives, nil included.
@Suite struct ChangeJSONFastReaderEdgeTests {
    typealias PlainChange = Change<String, String, Value>

    private func slow(_ bytes: [UInt8]) -> PlainChange? {
        try? JSONDecoder().decode(PlainChange.self, from: Data(bytes))
    }

    private func fast(_ bytes: [UInt8]) -> PlainChange? {
        bytes.withUnsafeBytes { try? ChangeJSONFastReader.change($0).get() }
    }

    private func document(recordId: [UInt8]) -> [UInt8] {
        Array(#"{"record_id":""#.utf8) + recordId
            + Array(#"","col_name":"c","value":1,"col_version":1,"db_version":2,"#.utf8)
            + Array(#""node_id":3,"local_db_version":4}"#.utf8)
    }

    /// What is put into a 40-byte string at every place, and whether the result is JSON.
    private static let insertions: [(bytes: [UInt8], isJSON: Bool)] = [
        (Array(#"\""#.utf8), true), (Array(#"\\"#.utf8), true), (Array(#"\/"#.utf8), true),
        (Array(#"\n"#.utf8), true), (Array(#"\u00e9"#.utf8), true),
        (Array(#"\ud83d\ude42"#.utf8), true), (Array("é".utf8), true), (Array("🙂".utf8), true),
        ([0x7F], true), ([0x01], false), ([0x1F], false), ([0x80], false), ([0xFF], false),
        ([0xE2, 0x82], false), ([0xC0, 0xAF], false), (Array(#"\x"#.utf8), false),
        (Array(#"\ud83d"#.utf8), false),
    ]

    @Test func everySpecialByteAtEveryPlaceOfAStringReadsAsJSONDecoderReadsIt() {
        let plain = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
        for (inserted, isJSON) in Self.insertions {
            for place in 0...plain.count {
                var recordId = plain
                recordId.insert(contentsOf: inserted, at: place)
                let bytes = document(recordId: recordId)
                let expected = slow(bytes)
                #expect((expected != nil) == isJSON, "\(inserted) at \(place)")
                #expect(fast(bytes) == expected, "\(inserted) at \(place)")
            }
        }
    }

    @Test func aStringCutShortAtEveryPlaceIsNeverRead() {
        let bytes = document(recordId: Array("a string of some length/with a slash".utf8))
        for end in 0..<bytes.count {
            let cut = Array(bytes[..<end])
            #expect(fast(cut) == nil, "\(end)")
        }
    }

    @Test func onlyTheExactKeysMatch() throws {
        let base = try ChangeJSON.encode(
            PlainChange(
                recordId: "r", colName: "c", value: 1, colVersion: 1, dbVersion: 2, nodeId: 3,
                localDbVersion: 4, flags: 1), format: .rust)
        #expect(fast(Array(base)) != nil)
        let text = String(decoding: base, as: UTF8.self)
        let keys = [
            "record_id", "col_name", "value", "col_version", "db_version", "node_id",
            "local_db_version", "flags",
        ]
        for key in keys {
            for index in key.utf8.indices {
                var altered = Array(key.utf8)
                let offset = key.utf8.distance(from: key.utf8.startIndex, to: index)
                altered[offset] ^= 0x01
                let bytes = Array(
                    text.replacingOccurrences(
                        of: "\"\(key)\":", with: "\"\(String(decoding: altered, as: UTF8.self))\":"
                    ).utf8)
                // An altered key names no field and is skipped: a required field is then
                // missing, an optional one absent, as JSONDecoder reads it.
                #expect(fast(bytes) == slow(bytes), "\(key) altered at \(offset)")
                #expect(fast(bytes) != fast(Array(base)), "\(key) altered at \(offset)")
            }
        }
        // An escaped key is the same key, to JSONDecoder and to the reader.
        let escaped = Data(
            text.replacingOccurrences(of: "\"node_id\"", with: #""node\u005fid""#).utf8)
        #expect(fast(Array(escaped)) == fast(Array(base)))
        #expect(try ChangeJSON.decode(escaped) == (try ChangeJSON.decode(base) as PlainChange))
    }

    @Test func versionsAreSummedFromTheirDigitsAndTheRestIsLeftAlone() {
        let read: [(String, UInt64?)] = [
            ("0", 0), ("7", 7), ("18446744073709551615", .max), ("18446744073709551616", nil),
            ("99999999999999999999", nil), ("00", nil), ("01", nil), ("-0", nil), ("-1", nil),
            ("1.0", nil), ("1e3", nil), ("1E3", nil), ("+1", nil), ("", nil),
        ]
        for (digits, expected) in read {
            let bytes = Array(
                (#"{"record_id":"r","col_version":\#(digits),"db_version":2,"#
                    + #""node_id":3,"local_db_version":4}"#).utf8)
            #expect(fast(bytes)?.colVersion == expected, "\(digits)")
            if let read = fast(bytes) { #expect(read == slow(bytes), "\(digits)") }
        }
    }

    @Test func integerValuesAtTheEdgesOfInt64AndUInt64() {
        let read: [(String, Value?)] = [
            ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
            ("-0", .double(-0.0)), ("9223372036854775808", .unsigned(1 << 63)),
            ("18446744073709551615", .unsigned(.max)), ("18446744073709551616", .double(0x1p64)),
            ("-9223372036854775809", .double(-0x1p63)), ("-", nil), ("01", nil),
        ]
        for (digits, expected) in read {
            let bytes = Array(
                (#"{"record_id":"r","col_name":"c","value":\#(digits),"col_version":1,"#
                    + #""db_version":2,"node_id":3,"local_db_version":4}"#).utf8)
            #expect(fast(bytes)?.value == expected, "\(digits)")
            if case .int? = expected { #expect(fast(bytes) == slow(bytes), "\(digits)") }
        }
    }

    @Test func linesOfASliceWithEveryLineEndAndTheRightNumberInErrors() throws {
        let change = PlainChange(
            recordId: "r/1", colName: "c", value: "v", colVersion: 1, dbVersion: 2, nodeId: 3,
            localDbVersion: 4)
        let rust = try ChangeJSON.encode(change, format: .rust)
        let swift = try ChangeJSON.encode(change)
        var input = Data("garbage before the slice\n".utf8)
        let sliceStart = input.count
        input.append(rust + Data("\r\n \t\n".utf8) + swift + Data("\n\n".utf8))
        input.append(Data(#"{"record\u005fid":"r/1","col_name":"c","value":"v","#.utf8))
        input.append(
            Data(#""col_version":1,"db_version":2,"node_id":3,"local_db_version":4}"#.utf8))
        input.append(Data("\n".utf8) + rust + Data("\n{\"record_id\":1}\n".utf8) + swift)
        var reader = ChangeJSONLinesReader<String, String, Value>(input[sliceStart...])
        var lines: [Int] = []
        for _ in 0..<4 {
            #expect(try reader.next() == change)
            lines.append(reader.lineNumber)
        }
        #expect(lines == [1, 3, 5, 6])
        let error = #expect(throws: ChangeJSONError.self) { try reader.next() }
        #expect(error?.line == 7 && reader.lineNumber == 7)
        // The reader goes on after a bad line.
        #expect(try reader.next() == change)
        #expect(reader.lineNumber == 8)
        #expect(try reader.next() == nil)
    }
}
