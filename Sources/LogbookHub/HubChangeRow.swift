import Logbook
import LogbookCRDT
import NIOCore
import PostgresNIO

/// Turns a row of `record_id, col_name, value, col_version, db_version, node_id,
/// hub_version` (a cell, or a tombstone with a null column) into a change.
///
/// The cells are read by hand instead of through postgres-nio's typed `decode`: its generic
/// path (tuple metadata, a decodable witness and a context per column) cost more than the
/// rest of a pull put together, about 4 µs a row. Every cell is still checked: its type,
/// its binary format and its length.
enum HubChangeRow {
    static let columnCount = 7

    static func change(_ row: PostgresRow) throws -> Change<String, String, Value> {
        var cells = row.makeIterator()
        let record = try bytes(cells.next(), "record_id")
        let column = try optionalBytes(cells.next(), "col_name")
        let value = try optionalBytes(cells.next(), "value")
        let colVersion = try integer(cells.next(), "col_version")
        let dbVersion = try integer(cells.next(), "db_version")
        let node = try integer(cells.next(), "node_id")
        let version = try integer(cells.next(), "hub_version")
        guard cells.next() == nil else {
            throw HubError.corruptRow("a change row has extra columns")
        }
        let recordId = String(buffer: record)
        guard let column else {
            return Change(
                recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
                dbVersion: HubColumns.version(stored: dbVersion),
                nodeId: HubColumns.nodeId(stored: node),
                localDbVersion: HubColumns.version(stored: version), flags: 0)
        }
        return Change(
            recordId: recordId, colName: String(buffer: column),
            value: try value.map { try decodeValue($0, of: recordId) },
            colVersion: HubColumns.version(stored: colVersion),
            dbVersion: HubColumns.version(stored: dbVersion),
            nodeId: HubColumns.nodeId(stored: node),
            localDbVersion: HubColumns.version(stored: version), flags: 0)
    }

    /// A value in the log's binary form, which must fill its cell exactly.
    private static func decodeValue(_ bytes: ByteBuffer, of recordId: String) throws -> Value {
        try bytes.withUnsafeReadableBytes { try decodeValue($0, of: recordId) }
    }

    /// A value in the log's binary form, which must fill `bytes` exactly.
    static func decodeValue(_ bytes: UnsafeRawBufferPointer, of recordId: String) throws -> Value {
        var position = 0
        let read = ValueCodec.read(bytes, at: &position, depth: 0)
        let decoded = position == bytes.count ? read : nil
        guard let decoded else {
            throw HubError.corruptRow(
                "the value of record \(ChangeAdmission.quoted(recordId)) does not decode")
        }
        return decoded
    }

    private static func optionalBytes(_ cell: PostgresCell?, _ name: String) throws -> ByteBuffer? {
        guard let cell else { throw HubError.corruptRow("a change row has no \(name)") }
        guard cell.dataType == .bytea, cell.format == .binary else {
            throw HubError.corruptRow(
                "\(name) is \(cell.dataType) in \(cell.format) form, not binary bytea")
        }
        return cell.bytes
    }

    private static func bytes(_ cell: PostgresCell?, _ name: String) throws -> ByteBuffer {
        guard let bytes = try optionalBytes(cell, name) else {
            throw HubError.corruptRow("\(name) is null")
        }
        return bytes
    }

    private static func integer(_ cell: PostgresCell?, _ name: String) throws -> Int64 {
        guard let cell else { throw HubError.corruptRow("a change row has no \(name)") }
        guard cell.dataType == .int8, cell.format == .binary, var bytes = cell.bytes,
            bytes.readableBytes == 8, let integer = bytes.readInteger(as: Int64.self)
        else {
            throw HubError.corruptRow(
                "\(name) is not an 8-byte binary int8 (\(cell.dataType), \(cell.format), \(cell.bytes?.readableBytes ?? 0) bytes)"
            )
        }
        return integer
    }
}
