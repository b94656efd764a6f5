import Foundation
import LogbookCRDT
import Testing

// Value is natural JSON: each case round-trips through JSONEncoder/JSONDecoder, bytes use
// the tagged base64 form, and literals build the expected cases.
@Suite struct ValueTests {
    private func roundTrip(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }

    @Test(arguments: [
        Value.null, true, false, 0, -42, .int(.max), .int(.min), 2.5, -0.125, "", "héllo \"x\"",
        .bytes([0, 1, 255]), .bytes([]), [1, "two", nil, [3.5]], ["k": ["nested": [true]]],
    ])
    func roundTripsThroughJSON(_ value: Value) throws {
        #expect(try roundTrip(value) == value)
    }

    @Test func encodesAsNaturalJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let value: Value = ["a": [1, 2.5, "s", nil, true], "b": .bytes([1, 2, 3])]
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(json == #"{"a":[1,2.5,"s",null,true],"b":{"$bytes":"AQID"}}"#)
    }

    @Test func integralNumbersDecodeAsIntAndOthersAsDouble() throws {
        let decoded = try JSONDecoder().decode(Value.self, from: Data("[1, 1.5, 1e300]".utf8))
        #expect(decoded == [1, 1.5, .double(1e300)])
    }

    @Test func taggedObjectWithInvalidBase64StaysAnObject() throws {
        let decoded = try JSONDecoder().decode(Value.self, from: Data(#"{"$bytes":"*"}"#.utf8))
        #expect(decoded == ["$bytes": "*"])
    }

    @Test func literalsBuildTheMatchingCases() {
        let value: Value = ["n": nil, "b": true, "i": 3, "d": 0.5, "s": "x", "a": [1]]
        #expect(
            value
                == .object([
                    "n": .null, "b": .bool(true), "i": .int(3), "d": .double(0.5),
                    "s": .string("x"), "a": .array([.int(1)]),
                ]))
        #expect(Value.int(3).doubleValue == 3)
        #expect(Value.string("x").stringValue == "x")
        #expect(Value.int(1) != Value.double(1))
    }
}
