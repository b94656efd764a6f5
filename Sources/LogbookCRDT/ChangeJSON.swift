import Foundation

/// Reads and writes changes as crdt-lite JSON, one document or JSON lines.
///
/// Output keys are sorted and slashes unescaped, so the same change always encodes to the
/// same bytes. Reading accepts the Swift and the Rust form alike.
public enum ChangeJSON {
    /// Encodes one change as a single-line JSON object.
    @inlinable
    public static func encode<K, C, V>(
        _ change: Change<K, C, V>, format: ChangeJSONFormat = .standard
    ) throws(ChangeJSONError) -> Data {
        if let plain = sameType(change, as: Change<String, String, Value>.self),
            let written = plainJSON(plain, format: format)
        {
            return written
        }
        return try encodeWithFoundation(change, format: format)
    }

    /// Decodes one change from a JSON object in either form.
    @inlinable
    public static func decode<K, C, V>(
        _ data: Data, as type: Change<K, C, V>.Type = Change<K, C, V>.self
    ) throws(ChangeJSONError) -> Change<K, C, V> {
        if Change<K, C, V>.self == Change<String, String, Value>.self {
            let plain = try plainChange(data, line: nil)
            if let change = sameType(plain, as: Change<K, C, V>.self) { return change }
        }
        return try decodeWithFoundation(data, line: nil)
    }

    /// Encodes changes as one JSON array (the body of a crdt-lite `POST /changes`), written
    /// as `encode` writes each: every number keeps its kind, which `JSONEncoder` cannot do
    /// for a whole double (it writes 22.0 as `22`).
    @inlinable
    public static func encodeArray<K, C, V>(
        _ changes: some Sequence<Change<K, C, V>>, format: ChangeJSONFormat = .standard
    ) throws(ChangeJSONError) -> Data {
        var output = Data([UInt8(ascii: "[")])
        for change in changes {
            if output.count > 1 { output.append(UInt8(ascii: ",")) }
            output.append(try encode(change, format: format))
        }
        output.append(UInt8(ascii: "]"))
        return output
    }

    /// Encodes changes as JSON lines: one object per line, each line ending in `\n`.
    @inlinable
    public static func encodeLines<K, C, V>(
        _ changes: some Sequence<Change<K, C, V>>, format: ChangeJSONFormat = .standard
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
    @inlinable
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
    @inlinable
    public static func decodeArray<K, C, V>(
        _ data: Data, as type: Change<K, C, V>.Type = Change<K, C, V>.self
    ) throws(ChangeJSONError) -> [Change<K, C, V>] {
        if Change<K, C, V>.self == Change<String, String, Value>.self {
            let plain = try plainChanges(data)
            if let changes = sameType(plain, as: [Change<K, C, V>].self) { return changes }
        }
        return try decodeArrayWithFoundation(data)
    }

    // The generic entry points above are inlinable so that a caller's concrete types reach
    // them: the type test folds away and the fast path costs no metadata lookup or dynamic
    // cast per change. What they call stays out of line.

    /// A plain change written straight to bytes (`ChangeJSONFastWriter`), or nil when it
    /// holds a non-finite double, which `JSONEncoder` then refuses with its message.
    @usableFromInline
    static func plainJSON(_ change: Change<String, String, Value>, format: ChangeJSONFormat)
        -> Data?
    {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192)
        guard ChangeJSONFastWriter.append(change, format: format, to: &bytes) else { return nil }
        return Data(bytes)
    }

    @usableFromInline
    static func encodeWithFoundation<K, C, V>(
        _ change: Change<K, C, V>, format: ChangeJSONFormat
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

    /// One plain change read in place (`ChangeJSONFastReader`, the one reader of plain
    /// changes: it keeps every number's kind); the error says why it was not.
    @usableFromInline
    static func plainChange(_ data: some DataProtocol & ContiguousBytes, line: Int?)
        throws(ChangeJSONError) -> Change<String, String, Value>
    {
        switch ChangeJSONFastReader.change(data) {
        case .success(let change): return change
        case .failure(let refusal):
            throw error(refusal, line: line) {
                _ = try JSONDecoder().decode(Change<String, String, Value>.self, from: Data(data))
            }
        }
    }

    /// An array of plain changes read in place; the error says why it was not.
    @usableFromInline
    static func plainChanges(_ data: Data) throws(ChangeJSONError) -> [Change<
        String, String, Value
    >] {
        switch ChangeJSONFastReader.changes(data) {
        case .success(let changes): return changes
        case .failure(let refusal):
            throw error(refusal, line: nil) {
                _ = try JSONDecoder().decode([Change<String, String, Value>].self, from: data)
            }
        }
    }

    /// The error for input the plain reader did not read: its own reason when it refused
    /// valid JSON, else `JSONDecoder`'s account of what is malformed (`decode` runs it).
    private static func error(
        _ refusal: ChangeJSONFastReader.Refusal, line: Int?, decode: () throws -> Void
    ) -> ChangeJSONError {
        if let reason = refusal.reason {
            return ChangeJSONError(code: .refused, line: line, message: reason)
        }
        do { try decode() } catch { return ChangeJSONError(decoding: error, line: line) }
        // `JSONDecoder` read what the plain reader did not: not read, since it would have
        // been read inexactly.
        return ChangeJSONError(
            code: .refused, line: line,
            message: "valid JSON, but not a change Logbook reads exactly")
    }

    @usableFromInline
    static func decodeArrayWithFoundation<K, C, V>(_ data: Data) throws(ChangeJSONError)
        -> [Change<K, C, V>]
    {
        do {
            return try JSONDecoder().decode([Change<K, C, V>].self, from: data)
        } catch {
            throw ChangeJSONError(decoding: error, line: nil)
        }
    }

    /// One change by `JSONDecoder`: what the fast reader left, and every error.
    @usableFromInline
    static func decodeWithFoundation<K, C, V>(
        _ data: some DataProtocol & ContiguousBytes, line: Int?
    ) throws(ChangeJSONError) -> Change<K, C, V> {
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
    @usableFromInline var cursor: JSONLinesCursor

    /// The 1-based number of the line most recently read (0 before the first).
    public var lineNumber: Int { cursor.lineNumber }

    /// Creates a reader over a whole JSON-lines input.
    public init(_ data: Data) { cursor = JSONLinesCursor(data) }

    /// The next change, or nil at the end of the input. Throws `ChangeJSONError` naming the
    /// line for malformed input; later calls continue with the following line.
    @inlinable
    public mutating func next() throws(ChangeJSONError) -> Change<K, C, V>? {
        let readingPlain = Change<K, C, V>.self == Change<String, String, Value>.self
        while let line = cursor.nextLine(readingPlain: readingPlain) {
            if let change = line.change.flatMap({ sameType($0, as: Change<K, C, V>.self) }) {
                return change
            }
            if cursor.isBlank(line.range) { continue }
            if readingPlain {
                let plain = try ChangeJSON.plainChange(
                    cursor.data[line.range], line: cursor.lineNumber)
                if let change = sameType(plain, as: Change<K, C, V>.self) { return change }
            }
            return try ChangeJSON.decodeWithFoundation(
                cursor.data[line.range], line: cursor.lineNumber)
        }
        return nil
    }
}
