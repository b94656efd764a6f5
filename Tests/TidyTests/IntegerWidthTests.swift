import Foundation
import Testing

// watchOS's arm64_32 has a 32-bit `Int`: a shift past bit 30 in an `Int` turns negative
// there, and an `Int(x)` of a size or count read from disk traps once x passes 2^31. These
// checks keep both out of the sources, as far as text can tell (docs/decisions/0017).
@Suite struct IntegerWidthTests {
    /// Files that turn bytes from disk into sizes, counts and positions.
    static let diskDecoders = [
        "Sources/LogbookStorage/Batch", "Sources/LogbookStorage/Segment",
        "Sources/LogbookStorage/Epochs", "Sources/LogbookStorage/LogInspection.swift",
        "Sources/LogbookStorage/FileSystem/ChecksummedLines.swift",
        "Sources/LogbookStorage/Compression/LZ4Frame.swift",
        "Sources/LogbookStorage/Compression/LZ4FrameReader.swift",
        "Sources/LogbookStorage/Compression/LZ4BlockDecoder.swift",
        "Sources/Logbook/Encoding", "Sources/Logbook/Snapshots", "Sources/Logbook/Checkpoints",
    ]

    @Test func aShiftPastBit30NamesItsSixtyFourBitType() throws {
        // ICU's expressions: Swift's Regex has no lookbehind.
        let shift = try NSRegularExpression(pattern: #"(?<![\w.)])1 << (\d+)"#)
        for (file, number, line) in try Self.codeLines(under: ["Sources"]) {
            let text = String(line)
            let whole = NSRange(text.startIndex..., in: text)
            for match in shift.matches(in: text, range: whole) {
                guard let digits = Range(match.range(at: 1), in: text),
                    let bits = Int(text[digits]),
                    bits >= 31
                else { continue }
                #expect(
                    line.contains("Int64"),
                    "\(file):\(number) shifts 1 by \(bits) bits in a type the line does not name; a 32-bit Int cannot hold it: declare the constant UInt64 or Int64"
                )
            }
        }
    }

    @Test func diskDecodersConvertToIntOnlyWhereItCannotTrap() throws {
        let plainConversion = try NSRegularExpression(
            pattern: #"(?<![\w.])Int\((?!exactly:|truncatingIfNeeded:|clamping:|bitPattern:)"#)
        let lines = try Self.codeLines(under: Self.diskDecoders)
        #expect(lines.count > 1000, "the decoders were not found: \(lines.count) lines read")
        for (index, (file, number, line)) in lines.enumerated() {
            // A conversion whose argument the formatter moved to the next line reads on.
            var text = String(line)
            if text.hasSuffix("Int("), index + 1 < lines.count {
                text += lines[index + 1].2.trimmingCharacters(in: .whitespaces)
            }
            guard
                plainConversion.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                    != nil
            else { continue }
            Issue.record(
                "\(file):\(number) converts with Int(_:), which traps on a 32-bit Int past 2^31: use Int(exactly:) and refuse what does not fit, or Int(truncatingIfNeeded:) for a value already bounded below 2^31"
            )
        }
    }

    /// Every non-comment line of the Swift files under `paths` (directories or files).
    static func codeLines(under paths: [String]) throws -> [(String, Int, Substring)] {
        var result: [(String, Int, Substring)] = []
        for file in paths.flatMap(TidyTests.swiftFiles(under:)) {
            let lines = try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                result.append((file.lastPathComponent, index + 1, line))
            }
        }
        return result
    }
}
