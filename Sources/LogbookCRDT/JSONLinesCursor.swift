import Foundation

/// Walks the lines of a JSON-lines input for `ChangeJSONLinesReader`. It is not generic, so
/// the reader's loop, inlined into a caller with concrete types, never looks up metadata.
@usableFromInline
struct JSONLinesCursor {
    @usableFromInline let data: Data
    private var position: Data.Index
    /// The 1-based number of the line most recently returned (0 before the first).
    @usableFromInline private(set) var lineNumber = 0

    @usableFromInline
    init(_ data: Data) {
        self.data = data
        position = data.startIndex
    }

    /// The next line's bytes without its line end (`\n` or `\r\n`), and, when `readingPlain`
    /// (the reader's changes are plain ones), the plain change it holds read in place (nil
    /// for a line only `JSONDecoder` reads or rejects, and for a blank one); nil at the end.
    /// One pass over the bytes does both.
    @usableFromInline
    mutating func nextLine(readingPlain: Bool) -> (
        range: Range<Data.Index>, change: Change<String, String, Value>?
    )? {
        guard position < data.endIndex else { return nil }
        let first = position - data.startIndex
        // Offsets from `first`: where the line's text ends and where the next line starts.
        let (textEnd, next, change) = data.withUnsafeBytes {
            (bytes: UnsafeRawBufferPointer) -> (Int, Int, Change<String, String, Value>?) in
            let rest = UnsafeRawBufferPointer(rebasing: bytes[first..<bytes.count])
            guard let base = rest.baseAddress else { return (0, 0, nil) }
            let newline = memchr(base, 0x0A, rest.count).map {
                base.distance(to: UnsafeRawPointer($0))
            }
            var end = newline ?? rest.count
            if end > 0, rest[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let text = UnsafeRawBufferPointer(rebasing: rest[0..<end])
            let change = readingPlain ? try? ChangeJSONFastReader.change(text).get() : nil
            return (end, newline.map { $0 + 1 } ?? rest.count, change)
        }
        lineNumber += 1
        let start = position
        position = start + next
        return (start..<(start + textEnd), change)
    }

    /// Whether a line holds only spaces and tabs.
    @usableFromInline
    func isBlank(_ line: Range<Data.Index>) -> Bool {
        data[line].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }
}
