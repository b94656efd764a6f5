import Foundation
import LogbookCRDT
import Testing

// crdt-lite JSON interop: the Swift form (camelCase, nil omitted) and the Rust form
// (snake_case, explicit null) both decode; output is byte-stable with sorted keys; JSON lines
// report the line, field and expectation of the first bad line and keep what came before.
@Suite struct ChangeJSONTests {
    private let fieldSet = change(
        "entity/1", "name", "Lamp", col: 2, db: 7, node: 3, local: 9, flags: 1)
    private let fieldDeleted = change("entity/1", "name", nil, col: 3, db: 8, node: 3, local: 10)
    private let recordDeleted = change("entity/1", nil, nil, col: .max, db: 9, node: 3, local: 11)

    private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func swiftFormSortsKeysAndOmitsNil() throws {
        #expect(
            text(try ChangeJSON.encode(recordDeleted, format: .swift))
                == #"{"colVersion":18446744073709551615,"dbVersion":9,"flags":0,"#
                + #""localDbVersion":11,"nodeId":3,"recordId":"entity/1"}"#)
        #expect(
            text(try ChangeJSON.encode(fieldSet, format: .swift))
                == #"{"colName":"name","colVersion":2,"dbVersion":7,"flags":1,"#
                + #""localDbVersion":9,"nodeId":3,"recordId":"entity/1","value":"Lamp"}"#)
    }

    @Test func theRustFormIsWrittenWhenNoneIsAskedFor() throws {
        #expect(ChangeJSONFormat.standard == .rust)
        #expect(try ChangeJSON.encode(fieldSet) == (try ChangeJSON.encode(fieldSet, format: .rust)))
        #expect(
            try ChangeJSON.encodeArray([fieldSet, recordDeleted])
                == Data("[".utf8) + (try ChangeJSON.encode(fieldSet)) + Data(",".utf8)
                + (try ChangeJSON.encode(recordDeleted)) + Data("]".utf8))
        #expect(try ChangeJSON.decodeArray(try ChangeJSON.encodeArray([fieldSet])) == [fieldSet])
    }

    @Test func rustFormUsesSnakeCaseAndExplicitNull() throws {
        #expect(
            text(try ChangeJSON.encode(recordDeleted, format: .rust))
                == #"{"col_name":null,"col_version":18446744073709551615,"db_version":9,"#
                + #""flags":0,"local_db_version":11,"node_id":3,"record_id":"entity/1","#
                + #""value":null}"#)
    }

    @Test(arguments: ChangeJSONFormat.allCases)
    func everyKindOfChangeRoundTrips(_ format: ChangeJSONFormat) throws {
        for original in [fieldSet, fieldDeleted, recordDeleted] {
            let decoded: TestChange = try ChangeJSON.decode(
                ChangeJSON.encode(original, format: format))
            #expect(decoded == original)
        }
    }

    @Test func encodingIsByteStable() throws {
        let value: Value = ["z": 1, "a": ["y": 2, "b": 3], "m": [1, 2]]
        let first = try ChangeJSON.encode(change("r", "c", value, col: 1, db: 1, node: 1))
        let second = try ChangeJSON.encode(change("r", "c", value, col: 1, db: 1, node: 1))
        #expect(first == second)
        #expect(text(first).contains(#""value":{"a":{"b":3,"y":2},"m":[1,2],"z":1}"#))
    }

    @Test(arguments: ChangeJSONFormat.allCases)
    func aNullValueIsTaggedSoItNeverReadsAsADeletion(_ format: ChangeJSONFormat) throws {
        let null = change("r", "c", .null, col: 1, db: 1, node: 1)
        let nested = change("r", "c", ["a": .null, "b": [.null, 1]], col: 1, db: 1, node: 1)
        let encoded = text(try ChangeJSON.encode(null, format: format))
        #expect(encoded.contains(#""value":{"$null":true}"#), "\(encoded)")
        #expect(try ChangeJSON.decode(Data(encoded.utf8)) == null)
        // Inside an array or object a null is plain JSON: only the top level is ambiguous.
        let nestedText = text(try ChangeJSON.encode(nested, format: format))
        #expect(nestedText.contains(#""value":{"a":null,"b":[null,1]}"#), "\(nestedText)")
        #expect(try ChangeJSON.decode(Data(nestedText.utf8)) == nested)
    }

    /// What crdt-lite's own decoders make of a change: the Swift port's synthesized
    /// `Codable` (camelCase, `value: V?`) and serde's `Option<serde_json::Value>` (snake_case),
    /// both of which read a bare `null` as no value.
    private struct UpstreamChange: Decodable {
        var value: Value?
        enum CodingKeys: String, CodingKey { case value }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decodeIfPresent(Value.self, forKey: .value)
        }
    }

    @Test(arguments: ChangeJSONFormat.allCases)
    func crdtLiteDecodersSeeANullValueAsAValueAndAFieldDeletionAsNone(
        _ format: ChangeJSONFormat
    ) throws {
        let null = try JSONDecoder().decode(
            UpstreamChange.self,
            from: ChangeJSON.encode(change("r", "c", .null, col: 1, db: 1, node: 1), format: format)
        )
        #expect(null.value != nil, "a live null must not read as a deletion")
        let deleted = try JSONDecoder().decode(
            UpstreamChange.self, from: ChangeJSON.encode(fieldDeleted, format: format))
        #expect(deleted.value == nil)
    }

    @Test func everyPathThatReadsAValueReadsTheNullTagAlike() throws {
        // `logbook put r v={"$null":true}` reads a bare Value; a change reads its value: both
        // must agree, or an export and re-import would change the cell.
        let tag = Data(#"{"$null": true}"#.utf8)
        #expect(try JSONDecoder().decode(Value.self, from: tag) == .null)
        #expect(
            try JSONDecoder().decode(Value.self, from: Data(#"{"$null": false}"#.utf8)) == [
                "$null": false
            ])
    }

    @Test func aBareNullValueInTheSwiftFormIsRefusedAsAmbiguous() throws {
        let absent: TestChange = try ChangeJSON.decode(
            Data(
                #"{"recordId":"r","colName":"c","colVersion":1,"dbVersion":1,"nodeId":1,"localDbVersion":1,"flags":0}"#
                    .utf8))
        #expect(absent.value == nil)
        do {
            let _: TestChange = try ChangeJSON.decode(
                Data(
                    #"{"recordId":"r","colName":"c","value":null,"colVersion":1,"dbVersion":1,"nodeId":1,"localDbVersion":1,"flags":0}"#
                        .utf8))
            Issue.record("a bare null value was accepted")
        } catch {
            #expect("\(error)".contains("ambiguous") && "\(error)".contains(#"{"$null": true}"#))
        }
    }

    @Test func rustFormExplicitNullMeansAbsent() throws {
        let decoded: TestChange = try ChangeJSON.decode(
            Data(
                #"{"record_id":"r","col_name":"c","value":null,"col_version":2,"db_version":3,"node_id":4,"local_db_version":5,"flags":6}"#
                    .utf8))
        #expect(decoded == change("r", "c", nil, col: 2, db: 3, node: 4, local: 5, flags: 6))
    }

    @Test func absentFlagsDecodeAsZero() throws {
        let decoded: TestChange = try ChangeJSON.decode(
            Data(
                #"{"record_id":"r","col_name":null,"value":null,"col_version":18446744073709551615,"db_version":3,"node_id":4,"local_db_version":5}"#
                    .utf8))
        #expect(decoded == change("r", nil, nil, col: .max, db: 3, node: 4, local: 5))
    }

    @Test func changeCodableIsTheSwiftForm() throws {
        let viaEncoder = try JSONDecoder().decode(
            TestChange.self, from: JSONEncoder().encode(fieldSet))
        #expect(viaEncoder == fieldSet)
    }

    @Test func linesRoundTripInBothForms() throws {
        for format in ChangeJSONFormat.allCases {
            let data = try ChangeJSON.encodeLines(
                [fieldSet, fieldDeleted, recordDeleted], format: format)
            #expect(text(data).split(separator: "\n").count == 3)
            #expect(try ChangeJSON.decodeLines(data) == [fieldSet, fieldDeleted, recordDeleted])
        }
    }

    @Test func blankLinesAndCRLFAreAccepted() throws {
        let line = text(try ChangeJSON.encode(fieldSet))
        let data = Data("\n\(line)\r\n   \n\(line)".utf8)
        #expect(try ChangeJSON.decodeLines(data) == [fieldSet, fieldSet])
    }

    @Test(
        arguments: [
            (
                #"{"recordId":"r","colVersion":1,"dbVersion":1,"nodeId":1}"#, "missingField",
                "localDbVersion", "missing"
            ),
            (
                #"{"recordId":"r","colVersion":"one","dbVersion":1,"nodeId":1,"localDbVersion":1}"#,
                "wrongType", "colVersion", "expected an unsigned 64-bit integer"
            ),
            (
                #"{"recordId":"r","colVersion":-1,"dbVersion":1,"nodeId":1,"localDbVersion":1}"#,
                "wrongType", "colVersion", "expected an unsigned 64-bit integer"
            ),
            (
                #"{"recordId":7,"colVersion":1,"dbVersion":1,"nodeId":1,"localDbVersion":1}"#,
                "wrongType", "recordId", "expected a string"
            ),
            (#"{"recordId":"r", "#, "malformedJSON", nil, "not valid JSON"),
        ] as [(String, String, String?, String)])
    func badLineIsReportedWithLineFieldAndExpectation(
        line: String, code: String, field: String?, message: String
    ) throws {
        let good = text(try ChangeJSON.encode(fieldSet))
        var reader = ChangeJSONLinesReader<String, String, Value>(
            Data("\(good)\n\(good)\n\(line)\n\(good)\n".utf8))
        #expect(try reader.next() == fieldSet)
        #expect(try reader.next() == fieldSet)
        let error = #expect(throws: ChangeJSONError.self) { try reader.next() }
        #expect(error?.line == 3)
        #expect(error?.code.description == code)
        #expect(error?.field == field)
        #expect(error?.message.contains(message) == true)
        #expect(error?.description.hasPrefix("line 3") == true)
        // The reader goes on past the bad line; what it returned before is untouched.
        #expect(try reader.next() == fieldSet)
        #expect(try reader.next() == nil)
    }

    @Test func decodeLinesStopsAtTheFirstBadLine() {
        let error = #expect(throws: ChangeJSONError.self) {
            _ = try ChangeJSON.decodeLines(Data("{}\n".utf8), as: TestChange.self)
        }
        #expect(error?.line == 1)
        #expect(error?.code == .missingField)
    }

    @Test func nonFiniteDoubleCannotBeEncoded() {
        #expect(throws: ChangeJSONError.self) {
            _ = try ChangeJSON.encode(change("r", "c", .double(.nan), col: 1, db: 1, node: 1))
        }
    }
}
