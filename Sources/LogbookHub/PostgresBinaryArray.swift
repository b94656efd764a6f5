import NIOCore
import PostgresNIO

/// A one-dimensional array cell in PostgreSQL's binary form (`array_send`): a header (the
/// number of dimensions, a has-nulls flag, the element type's OID; per dimension its length
/// and lower bound), then each element as a 4-byte length (−1 for NULL) and its bytes.
///
/// A page of changes comes as one row of such arrays (`HubPageReader`) instead of one row
/// per change: postgres-nio's per-row and per-cell work (a `DataRow`, a cell and a buffer
/// slice per column, an async step per row) was most of a pull. Every length is checked
/// against the cell, so a corrupt or hostile answer is refused, never read past.
struct PostgresBinaryArray {
    /// The cell's bytes.
    let bytes: [UInt8]
    /// Where each element's bytes start in `bytes`, and how many (−1: NULL).
    private(set) var starts: [Int] = []
    private(set) var lengths: [Int32] = []

    var count: Int { starts.count }

    /// Reads `cell` as an array of `element` values; a NULL cell is an empty array (what
    /// `array_agg` answers for no rows).
    init(_ cell: PostgresCell?, of element: PostgresDataType, column: String) throws {
        guard let cell else { throw HubError.corruptRow("a page has no \(column) column") }
        guard cell.format == .binary else {
            throw HubError.corruptRow("\(column) is in \(cell.format) form, not binary")
        }
        guard let buffer = cell.bytes else {
            bytes = []
            return
        }
        bytes = Array(buffer.readableBytesView)
        try bytes.withUnsafeBytes { raw in try parse(raw, of: element, column: column) }
    }

    /// The element count `cell`'s header announces, without reading the elements: 0 for
    /// a NULL or empty array, nil when the header is cut short. A hint for planning only;
    /// `init` checks the same count against the elements.
    static func announcedCount(_ cell: PostgresCell?) -> Int? {
        guard let cell, cell.format == .binary else { return nil }
        guard let buffer = cell.bytes else { return 0 }
        let view = buffer.readableBytesView
        func int32(at offset: Int) -> Int32? {
            guard view.count >= offset + 4 else { return nil }
            let start = view.index(view.startIndex, offsetBy: offset)
            return view[start..<(start + 4)].reduce(0) { $0 << 8 | Int32($1) }
        }
        guard let dimensions = int32(at: 0) else { return nil }
        guard dimensions == 1 else { return dimensions == 0 ? 0 : nil }
        return int32(at: 12).map(Int.init)
    }

    private mutating func parse(
        _ raw: UnsafeRawBufferPointer, of element: PostgresDataType, column: String
    ) throws {
        var at = 0
        func int32() throws -> Int32 {
            guard raw.count - at >= 4 else {
                throw HubError.corruptRow("\(column) ends inside its array's header or lengths")
            }
            defer { at += 4 }
            return Int32(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
        }
        let dimensions = try int32()
        _ = try int32()  // has nulls: each element's length says so
        let type = UInt32(bitPattern: try int32())
        guard dimensions == 0 || dimensions == 1 else {
            throw HubError.corruptRow("\(column) is an array of \(dimensions) dimensions, not 1")
        }
        guard dimensions == 1 else { return }
        guard type == element.rawValue else {
            throw HubError.corruptRow(
                "\(column) holds elements of type \(type), not \(element) (\(element.rawValue))")
        }
        let count = try int32()
        _ = try int32()  // lower bound
        // Each element takes at least its 4-byte length: a count the bytes cannot hold is
        // refused before anything is reserved for it.
        guard count >= 0, Int(count) <= (raw.count - at) / 4 else {
            throw HubError.corruptRow("\(column) announces \(count) elements in \(raw.count) bytes")
        }
        starts.reserveCapacity(Int(count))
        lengths.reserveCapacity(Int(count))
        for _ in 0..<count {
            let length = try int32()
            guard length >= -1, Int(length) <= raw.count - at else {
                throw HubError.corruptRow(
                    "\(column) has an element of \(length) bytes past its end")
            }
            starts.append(at)
            lengths.append(length)
            at += max(0, Int(length))
        }
        guard at == raw.count else {
            throw HubError.corruptRow("\(column) has \(raw.count - at) bytes after its elements")
        }
    }

    /// Whether element `index` is NULL.
    func isNull(_ index: Int) -> Bool { lengths[index] < 0 }

    /// Element `index` as an 8-byte integer (`int8`); throws on NULL or another length.
    func int64(_ index: Int, column: String) throws -> Int64 {
        guard lengths[index] == 8 else {
            throw HubError.corruptRow("\(column) has an element of \(lengths[index]) bytes, not 8")
        }
        return bytes.withUnsafeBytes {
            Int64(bigEndian: $0.loadUnaligned(fromByteOffset: starts[index], as: Int64.self))
        }
    }

    /// Calls `body` with element `index`'s bytes (empty for NULL).
    func withElement<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result)
        rethrows -> Result
    {
        try bytes.withUnsafeBytes { raw in
            let start = starts[index]
            let length = max(0, Int(lengths[index]))
            return try body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]))
        }
    }
}
