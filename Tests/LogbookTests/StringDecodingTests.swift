import LogbookCRDT
import Testing

@testable import Logbook

// The pieces a replay builds its strings with: the ASCII test that reads words (with the
// last one overlapping), strings made straight from ASCII bytes, and the table of column
// names already built. Each must answer exactly what the plain, byte-by-byte way answers.
@Suite struct StringDecodingTests {
    /// Every length up to 40, every position of one high byte in it.
    @Test func theWordWiseASCIITestFindsAHighByteAtAnyPosition() {
        for length in 0...40 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            bytes.withUnsafeBytes { #expect(ValueCodec.isASCII($0), "length \(length)") }
            for position in 0..<length {
                bytes[position] = 0x80
                bytes.withUnsafeBytes {
                    #expect(!ValueCodec.isASCII($0), "length \(length), position \(position)")
                }
                bytes[position] = 0x7F
                bytes.withUnsafeBytes {
                    #expect(ValueCodec.isASCII($0), "0x7F, length \(length), at \(position)")
                }
                bytes[position] = UInt8(ascii: "a")
            }
        }
    }

    @Test func aStringMadeFromASCIIBytesIsTheDecodedString() {
        for text in [
            "", "a", "name", "record/12345", String(repeating: "x", count: 15),
            String(repeating: "y", count: 16), String(repeating: "z", count: 300), "nul\u{0}in",
        ] {
            let made = Array(text.utf8).withUnsafeBytes { String(asciiBytes: $0) }
            #expect(made == text)
            #expect(Array(made.utf8) == Array(text.utf8))
        }
    }

    @Test func columnNamesFromTheTableEqualNamesBuiltAfresh() {
        var recent = RecentShortStrings()
        // More names than the table has slots, each asked for three times, interleaved:
        // slots are taken over, and every answer must still be the name's own.
        let names =
            (0..<200).map { "column\($0)" } + [
                "", "a", "a\u{0}", "ab", "fifteen-bytes!!",
                "sixteen-bytes!!!", "é", "naïve",
            ]
        for round in 0..<3 {
            for name in names {
                let found = Array(name.utf8).withUnsafeBytes { recent.string(of: $0) }
                #expect(found == name, "round \(round)")
                #expect(found.map { Array($0.utf8) } == Array(name.utf8), "round \(round)")
            }
        }
    }

    @Test func theTableRefusesWhatIsNotUTF8AsBuildingDoes() {
        var recent = RecentShortStrings()
        for bytes: [UInt8] in [[0xFF], [0x61, 0xC3], [0xC3, 0x28, 0x61], [0xE2, 0x82]] {
            #expect(bytes.withUnsafeBytes { recent.string(of: $0) } == nil, "\(bytes)")
            #expect(bytes.withUnsafeBytes { ValueCodec.string(of: $0) } == nil, "\(bytes)")
        }
        var none = RecentShortStrings.none
        #expect(Array("name".utf8).withUnsafeBytes { none.string(of: $0) } == "name")
        #expect([UInt8(0xFF)].withUnsafeBytes { none.string(of: $0) } == nil)
    }

    /// Two names whose first 15 bytes agree differ in the length byte of their keys.
    @Test func namesThatShareTheirBytesButNotTheirLengthStayApart() {
        var recent = RecentShortStrings()
        let short = Array("abc".utf8)
        let padded: [UInt8] = short + [0, 0]
        #expect(short.withUnsafeBytes { recent.string(of: $0) } == "abc")
        #expect(padded.withUnsafeBytes { recent.string(of: $0) } == "abc\u{0}\u{0}")
        #expect(short.withUnsafeBytes { recent.string(of: $0) } == "abc")
    }
}
