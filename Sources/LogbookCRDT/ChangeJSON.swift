import Foundation

/// Reads and writes changes as crdt-lite JSON, one document or JSON lines.
///
/// Output keys are sorted and slashes unescaped, so the same change always encodes to the
/// same bytes. Reading accepts the Swift and the Rust form alike.
public enum ChangeJSON {
    /// Encodes one change as a single-line JSON object.
    public static func encode<K, C, V>(
        _ change: Change<K, C, V>, format: ChangeJSONFormat = .swift
    ) throws(ChangeJSONError) -> Data {
        do {
            switch format {
            case .swift: return try makeEncoder().encode(change)
            case .rust: return try makeEncoder().encode(RustFormChange(change: change))
            }
        } catch {
            throw ChangeJSONError(code: .unencodable, message: "\(error)")
        }
    }

    /// Decodes one change from a JSON object in either form.
    public static func decode<K, C, V>(
        _ data: Data, as type: Change<K, C, V>.Type = Change<K, C, V>.self
    ) throws(ChangeJSONError) -> Change<K, C, V> {
        try decode(data, line: nil)
    }

    /// Encodes changes as JSON lines: one object per line, each line ending in `\n`.
    public static func encodeLines<K, C, V>(
        _ changes: some Sequence<Change<K, C, V>>, format: ChangeJSONFormat = .swift
    ) throws(ChangeJSONError) -> Data {
        var output = Data()
        for change in changes {
            output.append(try encode(change, format: format))
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }

    /// Decodes every line of a JSON-lines input; blank lines are skipped.
    ///
    /// Throws at the first bad line with its number; use `ChangeJSONLinesReader` to keep the
    /// changes read before it.
    public static func decodeLines<K, C, V>(
        _ data: Data, as type: Change<K, C, V>.Type = Change<K, C, V>.self
    ) throws(ChangeJSONError) -> [Change<K, C, V>] {
        var reader = ChangeJSONLinesReader<K, C, V>(data)
        var changes: [Change<K, C, V>] = []
        while let change = try reader.next() {
            changes.append(change)
        }
        return changes
    }

    /// Decodes an array of changes in either form (the body of a crdt-lite `POST`).
    public static func decodeArray<K, C, V>(
        _ data: Data, as type: Change<K, C, V>.Type = Change<K, C, V>.self
    ) throws(ChangeJSONError) -> [Change<K, C, V>] {
        if K.self == String.self, C.self == String.self, V.self == Value.self,
            let changes = ChangeJSONFastReader.changes(data) as? [Change<K, C, V>]
        {
            return changes
        }
        do {
            return try JSONDecoder().decode([Change<K, C, V>].self, from: data)
        } catch {
            throw ChangeJSONError(decoding: error, line: nil)
        }
    }

    /// One change; plain `Change<String, String, Value>` JSON is read in place
    /// (`ChangeJSONFastReader`), anything else — and every error — by `JSONDecoder`.
    static func decode<K, C, V>(
        _ data: some DataProtocol & ContiguousBytes, line: Int?
    ) throws(ChangeJSONError) -> Change<K, C, V> {
        if K.self == String.self, C.self == String.self, V.self == Value.self,
            let change = ChangeJSONFastReader.change(data) as? Change<K, C, V>
        {
            return change
        }
        do {
            return try JSONDecoder().decode(Change<K, C, V>.self, from: Data(data))
        } catch {
            throw ChangeJSONError(decoding: error, line: line)
        }
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Reads changes from JSON lines one at a time, so a bad line stops the reading without
/// touching the changes already returned. Blank lines (and a final newline) are skipped;
/// `\r\n` line ends are accepted.
public struct ChangeJSONLinesReader<
    K: Hashable & Codable & Sendable,
    C: Hashable & Codable & Sendable, V: Hashable & Codable & Sendable
> {
    private let data: Data
    private var position: Data.Index
    /// The 1-based number of the line most recently read (0 before the first).
    public private(set) var lineNumber = 0

    /// Creates a reader over a whole JSON-lines input.
    public init(_ data: Data) {
        self.data = data
        position = data.startIndex
    }

    /// The next change, or nil at the end of the input. Throws `ChangeJSONError` naming the
    /// line for malformed input; later calls continue with the following line.
    public mutating func next() throws(ChangeJSONError) -> Change<K, C, V>? {
        while position < data.endIndex {
            let lineEnd = data[position...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            var line = data[position..<lineEnd]
            position = lineEnd < data.endIndex ? data.index(after: lineEnd) : lineEnd
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return try ChangeJSON.decode(line, line: lineNumber)
        }
        return nil
    }
}
