import Foundation
import Testing

@testable import LogbookCRDT

// The in-place JSON reader must never read a change differently from `JSONDecoder`: on
// every input it either gives exactly the change JSONDecoder gives, or nil (and JSONDecoder
// then decides, with its errors). Checked on seeded random changes in both forms, on inputs
// it must leave to JSONDecoder, and on tens of thousands of mutated documents.
@Suite struct ChangeJSONFastReaderTests {
    typealias PlainChange = Change<String, String, Value>

    typealias Generator = RandomPlainChanges.Generator

    private func slow(_ data: Data) -> PlainChange? {
        try? JSONDecoder().decode(PlainChange.self, from: data)
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
                let fast = ChangeJSONFastReader.change(data)
                #expect(
                    fast != nil,
                    "seed \(seed): left to JSONDecoder: \(String(decoding: data, as: UTF8.self))")
                #expect(
                    fast == slow(data), "seed \(seed): \(String(decoding: data, as: UTF8.self))")
            }
            changes.append(change)
        }
        let array = try JSONEncoder().encode(changes)
        #expect(
            ChangeJSONFastReader.changes(array)
                == (try JSONDecoder().decode([PlainChange].self, from: array)))
    }

    @Test func whatItCannotReadExactlyGoesToJSONDecoder() {
        let base =
            #""record_id":"r","col_name":"c","col_version":1,"db_version":2,"node_id":3,"local_db_version":4"#
        let leftAlone = [
            #"{\#(base),"value":1e2}"#,  // a whole number with an exponent
            #"{\#(base),"value":2.0}"#,
            #"{\#(base),"value":9223372036854775808}"#,  // over Int64: an error there
            #"{\#(base),"value":"\ud800"}"#,  // a lone surrogate
            #"{\#(base),"record_id":"again"}"#,  // a key twice
            #"{\#(base),"recordId":"mixed"}"#,  // the two forms mixed
            #"{\#(base),"extra":1}"#,  // an unknown key
            #"{\#(base)} trailing"#,
            #"{"recordId":"r","colName":"c","value":null,"colVersion":1,"dbVersion":2,"nodeId":3,"localDbVersion":4}"#,
            #"{\#(base),"flags":4294967296}"#,  // over UInt32
            #"{\#(base),"value":"\#u{1}"}"#,  // a raw control character
            #"{"record_id":"r","col_version":1}"#,  // fields missing
            #"{\#(base),"value":{"a":1,"a":2}}"#,
            #"{\#(base),"value":"# + String(repeating: "[", count: 100)
                + String(repeating: "]", count: 100) + "}",  // deeper than it reads
        ]
        for text in leftAlone {
            #expect(ChangeJSONFastReader.change(Data(text.utf8)) == nil, "\(text)")
        }
        let spaced =
            " {\n\t\"record_id\" : \"r\" ,\"value\": [ 1 , -0 , 0.25 , \"\\u00e9\\ud83d\\ude42\" , {\"$null\" : true} ] ,"
            + #""col_name":null,"col_version":1,"db_version":2,"node_id":3,"local_db_version":4}  "#
        let read = ChangeJSONFastReader.change(Data(spaced.utf8))
        #expect(read != nil && read == slow(Data(spaced.utf8)))
    }

    /// Mutated documents: whatever the fast reader accepts, JSONDecoder reads alike.
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
            guard let fast = ChangeJSONFastReader.change(data) else { continue }
            accepted += 1
            #expect(fast == slow(data), "\(String(decoding: data, as: UTF8.self))")
        }
        #expect(accepted > 100, "the mutations left too little readable to mean anything")
    }
}
