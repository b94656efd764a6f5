import Foundation
import LogbookTesting
import Testing

@testable import LogbookCRDT

// The in-place JSON reader is the one reader of plain changes. It must read what every
// change written reads as, agree with `JSONDecoder` on every input both read except where
// Foundation loses a number's kind (`1.0` as an integer), and refuse with a reason the valid
// JSON it will not read. Checked on seeded random changes in both forms, on the inputs it
// refuses, and on tens of thousands of mutated documents.
@Suite struct ChangeJSONFastReaderTests {
    typealias PlainChange = Change<String, String, Value>

    typealias Generator = RandomPlainChanges.Generator

    private func slow(_ data: Data) -> PlainChange? {
        try? JSONDecoder().decode(PlainChange.self, from: data)
    }

    private func fast(_ data: Data) -> PlainChange? {
        try? ChangeJSONFastReader.change(data).get()
    }

    /// Why the reader refused valid JSON, or nil when it read the input or found it malformed.
    private func refusal(_ text: String) -> String? {
        guard case .failure(let refusal) = ChangeJSONFastReader.change(Data(text.utf8)) else {
            return nil
        }
        return refusal.reason
    }

    private func randomChange(_ random: inout Generator) -> PlainChange {
        RandomPlainChanges.change(&random)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyEncodedChangeReadsAsJSONDecoderReadsIt(seed: UInt64) throws {
        var random = Generator(state: seed)
        var changes: [PlainChange] = []
        for _ in 0..<2_000 {
            let change = randomChange(&random)
            for form in [ChangeJSONFormat.swift, .rust] {
                let data = try ChangeJSON.encode(change, format: form)
                #expect(
                    fast(data) == change, "seed \(seed): \(String(decoding: data, as: UTF8.self))")
                #expect(
                    fast(data) == slow(data),
                    "seed \(seed): \(String(decoding: data, as: UTF8.self))")
            }
            changes.append(change)
        }
        let array = try JSONEncoder().encode(changes)
        #expect(
            try ChangeJSONFastReader.changes(array).get()
                == (try JSONDecoder().decode([PlainChange].self, from: array)))
    }

    @Test func everyNumberKeepsItsKindAsSerdeJSONReadsIt() throws {
        let base =
            #""record_id":"r","col_name":"c","col_version":1,"db_version":2,"node_id":3,"local_db_version":4"#
        let read: [(String, Value)] = [
            ("1e2", .double(100)), ("2.0", .double(2)), ("-0.0", .double(-0.0)),
            ("-0", .double(-0.0)), ("0", .int(0)), ("1E+2", .double(100)),
            ("9223372036854775807", .int(.max)), ("9223372036854775808", .unsigned(1 << 63)),
            ("18446744073709551615", .unsigned(.max)), ("-9223372036854775808", .int(.min)),
            ("18446744073709551616", .double(0x1p64)),
            ("-9223372036854775809", .double(-0x1p63)), ("9.3e18", .double(9.3e18)),
            ("1e20", .double(1e20)), ("5e-324", .double(.leastNonzeroMagnitude)),
            ("[1.0,{\"a\":2.50}]", [.double(1), ["a": .double(2.5)]]),
        ]
        for (text, expected) in read {
            let change = try #require(fast(Data(#"{\#(base),"value":\#(text)}"#.utf8)), "\(text)")
            #expect(change.value == expected, "\(text)")
            if case .double(let double)? = change.value, case .double(let wanted) = expected {
                #expect(double.sign == wanted.sign, "\(text)")
            }
        }
    }

    @Test func validJSONItWillNotReadExactlyIsRefusedWithItsReason() {
        let base =
            #""record_id":"r","col_name":"c","col_version":1,"db_version":2,"node_id":3,"local_db_version":4"#
        let deep = String(repeating: "[", count: 66) + String(repeating: "]", count: 66)
        let refused: [(String, String)] = [
            (#"{\#(base),"value":1e400}"#, "beyond a 64-bit float"),
            (#"{\#(base),"value":-1e309}"#, "beyond a 64-bit float"),
            (#"{\#(base),"record_id":"again"}"#, "given twice"),
            (#"{\#(base),"recordId":"mixed"}"#, "mixes the Swift form"),
            (#"{\#(base),"value":{"a":1,"a":2}}"#, "key twice"),
            (#"{\#(base),"value":\#(deep)}"#, "deeper than 64"),
            (
                #"{"recordId":"r","colName":"c","value":null,"colVersion":1,"dbVersion":2,"nodeId":3,"localDbVersion":4}"#,
                "ambiguous"
            ),
            (
                #"{"value":null,"recordId":"r","colName":"c","colVersion":1,"dbVersion":2,"nodeId":3,"localDbVersion":4}"#,
                "ambiguous"
            ),
        ]
        for (text, reason) in refused {
            #expect(fast(Data(text.utf8)) == nil, "\(text)")
            #expect(refusal(text)?.contains(reason) == true, "\(text): \(refusal(text) ?? "-")")
        }
        let malformed = [
            #"{\#(base),"value":"\ud800"}"#,  // a lone surrogate
            #"{\#(base)} trailing"#,
            #"{\#(base),"flags":4294967296}"#,  // over UInt32
            #"{\#(base),"value":"\#u{1}"}"#,  // a raw control character
            #"{"record_id":"r","col_version":1}"#,  // fields missing
        ]
        for text in malformed {
            #expect(fast(Data(text.utf8)) == nil, "\(text)")
            #expect(refusal(text) == nil, "\(text)")
        }
        // Nesting to the limit is read; a bare null first in the Rust form is no value.
        let limit = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(fast(Data(#"{\#(base),"value":\#(limit)}"#.utf8)) != nil)
        let nullFirst =
            #"{"value":null,"record_id":"r","col_name":"c","col_version":1,"db_version":2,"node_id":3,"local_db_version":4}"#
        #expect(fast(Data(nullFirst.utf8))?.value == .none)
        #expect(fast(Data(nullFirst.utf8)) != nil)
        // Keys it does not know are skipped, as JSONDecoder skips them.
        let extra = Data(#"{\#(base),"extra":{"deep":[1.5]},"value":1}"#.utf8)
        #expect(fast(extra) != nil && fast(extra) == slow(extra))
        let spaced =
            " {\n\t\"record_id\" : \"r\" ,\"value\": [ 1 , -7 , 0.25 , \"\\u00e9\\ud83d\\ude42\" , {\"$null\" : true} ] ,"
            + #""col_name":null,"col_version":1,"db_version":2,"node_id":3,"local_db_version":4}  "#
        let read = fast(Data(spaced.utf8))
        #expect(read != nil && read == slow(Data(spaced.utf8)))
    }

    /// Mutated documents: whatever the fast reader accepts, JSONDecoder reads alike but for
    /// the kinds of numbers it loses.
    @Test func mutatedDocumentsNeverReadDifferently() throws {
        var random = Generator(state: 99)
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = [UInt8](
                try ChangeJSON.encode(
                    randomChange(&random), format: Bool.random(using: &random) ? .swift : .rust))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    bytes[index] =
                        Array(#"{}[]",:0123456789.eE+-"\ntuflasr"#.utf8).randomElement(
                            using: &random) ?? 0
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let data = Data(bytes)
            guard let read = fast(data) else { continue }
            accepted += 1
            #expect(
                slow(data).map(ValueFidelity.asFoundationReads)
                    == ValueFidelity.asFoundationReads(read),
                "\(String(decoding: data, as: UTF8.self))")
        }
        #expect(accepted > 100, "the mutations left too little readable to mean anything")
    }
}
