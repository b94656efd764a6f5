import NIOCore
import PostgresNIO
import Testing

@testable import LogbookHub

// The binary array reader a page's columns go through: what PostgreSQL sends reads back
// exactly, and every malformed cell is refused with a reason, never read past.
@Suite struct PostgresBinaryArrayTests {
    /// `array_send`'s layout for a one-dimensional array of `elements` (nil: NULL).
    static func encoded(_ elements: [[UInt8]?], type: UInt32 = 17, dimensions: Int32 = 1)
        -> [UInt8]
    {
        var buffer = ByteBuffer()
        buffer.writeInteger(dimensions)
        buffer.writeInteger(Int32(elements.contains(where: { $0 == nil }) ? 1 : 0))
        buffer.writeInteger(type)
        if dimensions > 0 {
            buffer.writeInteger(Int32(elements.count))
            buffer.writeInteger(Int32(1))
        }
        for element in elements {
            buffer.writeInteger(Int32(element.map(\.count) ?? -1))
            buffer.writeBytes(element ?? [])
        }
        return Array(buffer.readableBytesView)
    }

    static func cell(_ bytes: [UInt8]?) -> PostgresCell {
        PostgresCell(
            bytes: bytes.map { ByteBuffer(bytes: $0) }, dataType: .byteaArray, format: .binary,
            columnName: "c", columnIndex: 0)
    }

    @Test func elementsNullsAndEmptyArraysReadBack() throws {
        let array = try PostgresBinaryArray(
            Self.cell(Self.encoded([[1, 2], nil, []])), of: .bytea, column: "c")
        #expect(array.count == 3)
        #expect(array.withElement(0) { Array($0) } == [1, 2])
        #expect(array.isNull(1) && !array.isNull(2))
        #expect(array.withElement(2) { $0.count } == 0)
        #expect(try PostgresBinaryArray(Self.cell(nil), of: .bytea, column: "c").count == 0)
        let none = Self.encoded([], dimensions: 0)
        #expect(try PostgresBinaryArray(Self.cell(none), of: .bytea, column: "c").count == 0)
        let integers = try PostgresBinaryArray(
            Self.cell(Self.encoded([[0, 0, 0, 0, 0, 0, 1, 2]], type: 20)), of: .int8, column: "c")
        #expect(try integers.int64(0, column: "c") == 258)
    }

    @Test func everyTruncationAndMalformedHeaderIsRefused() throws {
        let good = Self.encoded([[1, 2, 3], nil, [4]])
        for length in 0..<good.count {
            #expect(throws: HubError.self, "cut at \(length)") {
                try PostgresBinaryArray(
                    Self.cell(Array(good.prefix(length))), of: .bytea, column: "c")
            }
        }
        let refused: [(String, [UInt8], PostgresDataType)] = [
            ("trailing bytes", good + [0], .bytea),
            ("two dimensions", Self.encoded([[1]], dimensions: 2), .bytea),
            ("another element type", good, .int8),
            ("a count past the bytes", Self.withInteger(good, at: 12, Int32.max), .bytea),
            ("a negative count", Self.withInteger(good, at: 12, -2), .bytea),
            ("an element past the end", Self.withInteger(good, at: 20, 1 << 20), .bytea),
            ("a length below -1", Self.withInteger(good, at: 20, -5), .bytea),
        ]
        for (reason, bytes, type) in refused {
            #expect(throws: HubError.self, "\(reason)") {
                try PostgresBinaryArray(Self.cell(bytes), of: type, column: "c")
            }
        }
        let text = PostgresCell(
            bytes: ByteBuffer(bytes: good), dataType: .byteaArray, format: .text,
            columnName: "c", columnIndex: 0)
        #expect(throws: HubError.self) { try PostgresBinaryArray(text, of: .bytea, column: "c") }
        let wrongWidth = try PostgresBinaryArray(
            Self.cell(Self.encoded([[1, 2]], type: 20)), of: .int8, column: "c")
        #expect(throws: HubError.self) { try wrongWidth.int64(0, column: "c") }
    }

    static func withInteger(_ bytes: [UInt8], at offset: Int, _ value: Int32) -> [UInt8] {
        var changed = bytes
        withUnsafeBytes(of: value.bigEndian) {
            changed.replaceSubrange(offset..<(offset + 4), with: $0)
        }
        return changed
    }

    @Test(.enabled(if: HubTestDatabase.enabled))
    func whatPostgreSQLSendsReadsBack() async throws {
        try await HubTestDatabase.withClient { client in
            let rows = try await client.query(
                """
                SELECT ARRAY['\\x0102'::bytea, NULL, ''::bytea, 'abc'::bytea],
                    ARRAY[1::int8, -1, 9223372036854775807], '{}'::bytea[], NULL::bytea[]
                """)
            for try await row in rows {
                let cells = Array(row)
                let bytes = try PostgresBinaryArray(cells[0], of: .bytea, column: "a")
                #expect(bytes.count == 4 && bytes.isNull(1))
                #expect(bytes.withElement(0) { Array($0) } == [1, 2])
                #expect(bytes.withElement(3) { String(decoding: $0, as: UTF8.self) } == "abc")
                let integers = try PostgresBinaryArray(cells[1], of: .int8, column: "b")
                #expect(try (0..<3).map { try integers.int64($0, column: "b") } == [1, -1, .max])
                #expect(try PostgresBinaryArray(cells[2], of: .bytea, column: "c").count == 0)
                #expect(try PostgresBinaryArray(cells[3], of: .bytea, column: "d").count == 0)
            }
        }
    }
}
