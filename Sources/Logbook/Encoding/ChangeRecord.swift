import LogbookCRDT
import LogbookStorage

/// One record of a Logbook log: an accepted change, or a clock advance that no change
/// carries (merges that rejected changes and writes to tombstoned records still move the
/// Lamport clock, and a replayed replica must end with the same clock).
public enum ChangeRecord: Hashable, Sendable {
    /// An accepted change, with the local version it was accepted at.
    case change(Change<String, String, Value>)
    /// The replica's clock reached this time.
    case clock(UInt64)
    /// A replica snapshot was taken right after this record, at this clock time: the
    /// snapshot names `nonce`, and is loaded only where the record before its offset is this
    /// mark (a snapshot from a diverged copy of the log finds another record there).
    /// Compaction keeps every mark; replay reads it as a clock record.
    case snapshotMark(time: UInt64, nonce: UInt64)

    /// The version the log indexes this record by: the change's local version or the time.
    public var version: UInt64 {
        switch self {
        case .change(let change): change.localDbVersion
        case .clock(let time): time
        case .snapshotMark(let time, _): time
        }
    }
}

/// Compact binary form of a `ChangeRecord`; see docs/format/change-record.md.
///
/// ```
/// u8 kind (1 set, 2 field deletion, 3 record deletion, 4 clock, 5 snapshot mark)
/// varint localDbVersion                       -- kind 4 stops here
/// u64 nonce, little-endian                    -- kind 5, then stops
/// varint dbVersion | varint nodeId | varint flags | string recordId
/// varint colVersion | string colName          -- kinds 1 and 2
/// value                                       -- kind 1
/// string = varint byteCount, UTF-8 bytes
/// ```
public enum ChangeRecordCodec {
    enum Kind: UInt8 {
        case set = 1, fieldDeletion = 2, recordDeletion = 3, clock = 4, snapshotMark = 5
    }

    /// Appends the encoding of `record` to `bytes`.
    public static func encode(_ record: ChangeRecord, into bytes: inout [UInt8]) {
        bytes.append(byteCount: size(of: record)) { write(record, to: $0) }
    }

    /// The bytes the encoding of `record` takes.
    public static func size(of record: ChangeRecord) -> Int {
        switch record {
        case .clock(let time): 1 + Varint.size(of: time)
        case .snapshotMark(let time, _): 1 + Varint.size(of: time) + 8
        case .change(let change): size(of: change, localDbVersion: change.localDbVersion)
        }
    }

    /// Writes the encoding of `record` to `pointer`, which has room for `size(of: record)`
    /// bytes; returns that many.
    public static func write(_ record: ChangeRecord, to pointer: UnsafeMutableRawPointer) -> Int {
        switch record {
        case .clock(let time):
            pointer.storeBytes(of: Kind.clock.rawValue, as: UInt8.self)
            return 1 + Varint.write(time, to: pointer + 1)
        case .snapshotMark(let time, let nonce):
            pointer.storeBytes(of: Kind.snapshotMark.rawValue, as: UInt8.self)
            let timeSize = Varint.write(time, to: pointer + 1)
            (pointer + 1 + timeSize).storeBytes(of: nonce.littleEndian, as: UInt64.self)
            return 1 + timeSize + 8
        case .change(let change):
            return write(change, localDbVersion: change.localDbVersion, to: pointer)
        }
    }

    /// Appends the encoding of `.change(change)` with `localDbVersion` in place of the
    /// change's own: a merge logs each accepted change at its new local version without
    /// copying it.
    public static func encode(
        _ change: Change<String, String, Value>, localDbVersion: UInt64,
        into bytes: inout [UInt8]
    ) {
        bytes.append(byteCount: size(of: change, localDbVersion: localDbVersion)) {
            write(change, localDbVersion: localDbVersion, to: $0)
        }
    }

    /// The bytes the encoding of `.change(change)` at `localDbVersion` takes.
    @inline(__always)
    public static func size(of change: Change<String, String, Value>, localDbVersion: UInt64)
        -> Int
    {
        var size =
            1 + Varint.size(of: localDbVersion) + Varint.size(of: change.dbVersion)
            + Varint.size(of: change.nodeId) + Varint.size(of: UInt64(change.flags))
            + ValueCodec.stringSize(change.recordId)
        if let column = change.colName {
            size += Varint.size(of: change.colVersion) + ValueCodec.stringSize(column)
            if let value = change.value { size += ValueCodec.size(of: value) }
        }
        return size
    }

    /// Writes the encoding of `.change(change)` at `localDbVersion` to `pointer`, which has
    /// room for `size(of:localDbVersion:)` bytes; returns that many. The engine logs its
    /// changes this way, straight into the pending batch (`Log.append(count:describedBy:
    /// writtenBy:)`).
    @inline(__always)
    public static func write(
        _ change: Change<String, String, Value>, localDbVersion: UInt64,
        to pointer: UnsafeMutableRawPointer
    ) -> Int {
        let kind: Kind =
            change.colName == nil
            ? .recordDeletion : change.value == nil ? .fieldDeletion : .set
        pointer.storeBytes(of: kind.rawValue, as: UInt8.self)
        var written = 1
        written += Varint.write(localDbVersion, to: pointer + written)
        written += Varint.write(change.dbVersion, to: pointer + written)
        written += Varint.write(change.nodeId, to: pointer + written)
        written += Varint.write(UInt64(change.flags), to: pointer + written)
        written += ValueCodec.writeString(change.recordId, to: pointer + written)
        if let column = change.colName {
            written += Varint.write(change.colVersion, to: pointer + written)
            written += ValueCodec.writeString(column, to: pointer + written)
            if let value = change.value {
                written += ValueCodec.write(value, to: pointer + written)
            }
        }
        return written
    }

    /// A change with every field empty, for `decode(_:into:)` to fill. A loop that keeps
    /// what it decodes takes a new one per record and moves the result on (`consume`):
    /// decoding every record into one kept value copied each change out of it, through
    /// `Change`'s generic value witness, which cost more than the decoding.
    public static func blankChange() -> Change<String, String, Value> {
        Change(
            recordId: "", colName: nil, value: nil, colVersion: 0, dbVersion: 0, nodeId: 0,
            localDbVersion: 0)
    }

    /// Decodes one record occupying all of `bytes`; returns why it is malformed on failure.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<
        ChangeRecord, ChangeRecordFailure
    > {
        if bytes.first == Kind.snapshotMark.rawValue {
            return snapshotMark(bytes).map {
                .success(.snapshotMark(time: $0.time, nonce: $0.nonce))
            }
                ?? .failure(.truncated("snapshot mark"))
        }
        var change = blankChange()
        switch decode(bytes, into: &change) {
        case .change: return .success(.change(change))
        case .clock(let time): return .success(.clock(time))
        case .failure(let failure): return .failure(failure)
        }
    }

    /// The time and nonce of a snapshot mark occupying all of `bytes`; nil for any other
    /// record or a malformed one.
    static func snapshotMark(_ bytes: UnsafeRawBufferPointer) -> (time: UInt64, nonce: UInt64)? {
        guard bytes.first == Kind.snapshotMark.rawValue else { return nil }
        var position = 1
        guard let time = Varint.read(bytes, at: &position), position + 8 == bytes.count else {
            return nil
        }
        let nonce = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
        return (time, nonce)
    }

    /// What `decode(_:into:)` found.
    public enum Outcome {
        /// A change, now in the `into` argument.
        case change
        /// A clock record, or a snapshot mark, with this time (the `into` argument is
        /// untouched): to a replay both only move the clock.
        case clock(UInt64)
        /// A malformed record.
        case failure(ChangeRecordFailure)
    }

    /// Decodes one record occupying all of `bytes` into `change`, reusing its storage: the
    /// replay loop's allocation-free form of `decode(_:)`.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, into change: inout Change<String, String, Value>
    ) -> Outcome {
        var columnNames = RecentShortStrings.none
        return decode(bytes, into: &change, columnNames: &columnNames)
    }

    /// `decode(_:into:)`, taking column names already built from `columnNames` (and leaving
    /// the ones it builds there): for loops over many records.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, into change: inout Change<String, String, Value>,
        columnNames: inout RecentShortStrings
    ) -> Outcome {
        var position = 0
        guard let kindByte = bytes.first, let kind = Kind(rawValue: kindByte) else {
            return .failure(.unknownKind(bytes.first))
        }
        position = 1
        guard let local = Varint.read(bytes, at: &position) else {
            return .failure(.truncated("localDbVersion"))
        }
        if kind == .clock {
            return position == bytes.count ? .clock(local) : .failure(.trailingBytes)
        }
        if kind == .snapshotMark {
            return position + 8 == bytes.count ? .clock(local) : .failure(.truncated("nonce"))
        }
        guard let db = Varint.read(bytes, at: &position) else {
            return .failure(.truncated("dbVersion"))
        }
        guard let node = Varint.read(bytes, at: &position) else {
            return .failure(.truncated("nodeId"))
        }
        guard let flags = Varint.read(bytes, at: &position), flags <= UInt64(UInt32.max) else {
            return .failure(.truncated("flags"))
        }
        guard
            let recordId = ValueCodec.readString(
                bytes, at: &position, sizeMax: ChangeLimits.recordIdSizeMax)
        else {
            return .failure(.truncated("recordId"))
        }
        change.recordId = recordId
        change.dbVersion = db
        change.nodeId = node
        change.localDbVersion = local
        change.flags = UInt32(flags)
        change.colName = nil
        change.value = nil
        change.colVersion = tombstoneColumnVersion
        if kind != .recordDeletion {
            guard let colVersion = Varint.read(bytes, at: &position) else {
                return .failure(.truncated("colVersion"))
            }
            guard
                let columnBytes = ValueCodec.readStringBytes(
                    bytes, at: &position, sizeMax: ChangeLimits.columnNameSizeMax),
                let column = columnNames.string(of: columnBytes)
            else {
                return .failure(.truncated("colName"))
            }
            change.colVersion = colVersion
            change.colName = column
            if kind == .set {
                let valueStart = position
                guard let value = ValueCodec.read(bytes, at: &position, depth: 0),
                    position - valueStart <= ChangeLimits.valueSizeMax
                else {
                    return .failure(.truncated("value"))
                }
                change.value = value
            }
        }
        return position == bytes.count ? .change : .failure(.trailingBytes)
    }
}

/// The identifying part of a stored change, read without building strings or values:
/// what compaction needs to decide whether a record is still live.
public struct ChangeRecordKey {
    /// Set, field deletion, record deletion or clock.
    public var kind: UInt8
    /// The change's local version (or the clock time).
    public var localDbVersion: UInt64
    /// Origin clock, origin node, column version (0 for clock records).
    public var dbVersion: UInt64
    /// Origin node.
    public var nodeId: UInt64
    /// Column version (`UInt64.max` for a record deletion).
    public var colVersion: UInt64
    /// The record id's UTF-8 bytes, inside the record.
    public var recordId: UnsafeRawBufferPointer
    /// The column name's UTF-8 bytes (empty for record deletions and clocks).
    public var column: UnsafeRawBufferPointer

    /// True for a clock record.
    public var isClock: Bool { kind == ChangeRecordCodec.Kind.clock.rawValue }
    /// True for a snapshot mark (`ChangeRecord.snapshotMark`), which compaction keeps.
    public var isSnapshotMark: Bool { kind == ChangeRecordCodec.Kind.snapshotMark.rawValue }
    /// True for a record deletion.
    public var isRecordDeletion: Bool { kind == ChangeRecordCodec.Kind.recordDeletion.rawValue }
}

extension ChangeRecordCodec {
    /// Reads the key of a record; nil when the record is malformed (the value is not read,
    /// so a damaged value is only caught by a full decode).
    public static func readKey(_ bytes: UnsafeRawBufferPointer) -> ChangeRecordKey? {
        // An empty slice may still have a base address: its count is checked first.
        guard !bytes.isEmpty, let base = bytes.baseAddress, let kind = Kind(rawValue: bytes[0])
        else { return nil }
        var fields = KeyFields(base: base, count: bytes.count)
        let empty = UnsafeRawBufferPointer(start: base, count: 0)
        guard let local = fields.varint() else { return nil }
        if kind == .clock || kind == .snapshotMark {
            return ChangeRecordKey(
                kind: kind.rawValue, localDbVersion: local, dbVersion: 0, nodeId: 0, colVersion: 0,
                recordId: empty, column: empty)
        }
        guard let db = fields.varint(), let node = fields.varint(), fields.varint() != nil,
            let recordId = fields.slice()
        else { return nil }
        var key = ChangeRecordKey(
            kind: kind.rawValue, localDbVersion: local, dbVersion: db, nodeId: node,
            colVersion: tombstoneColumnVersion,
            recordId: recordId, column: empty)
        if kind != .recordDeletion {
            guard let colVersion = fields.varint(), let column = fields.slice() else {
                return nil
            }
            key.colVersion = colVersion
            key.column = column
        }
        return key
    }

    /// Reads a record's fields after its kind byte; compaction reads the key of every record
    /// of the log, so single-byte varints (most lengths, nodes and column versions) take a
    /// fast path and slices are made without re-checking their bounds.
    private struct KeyFields {
        let base: UnsafeRawPointer
        let count: Int
        var position = 1

        init(base: UnsafeRawPointer, count: Int) {
            self.base = base
            self.count = count
        }

        @inline(__always)
        mutating func varint() -> UInt64? {
            if position < count {
                let byte = base.load(fromByteOffset: position, as: UInt8.self)
                if byte < 0x80 {
                    position += 1
                    return UInt64(byte)
                }
            }
            return Varint.read(UnsafeRawBufferPointer(start: base, count: count), at: &position)
        }

        @inline(__always)
        mutating func slice() -> UnsafeRawBufferPointer? {
            guard let length = varint(), length <= UInt64(count - position) else { return nil }
            defer { position += Int(truncatingIfNeeded: length) }
            return UnsafeRawBufferPointer(
                start: base + position, count: Int(truncatingIfNeeded: length))
        }
    }
}

/// Why a record is not a `ChangeRecord`.
public enum ChangeRecordFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The first byte is not a known kind (nil: the record is empty).
    case unknownKind(UInt8?)
    /// The record ends (or is malformed) inside this field.
    case truncated(String)
    /// Bytes remain after the record's last field.
    case trailingBytes

    /// The failure in words.
    public var description: String {
        switch self {
        case .unknownKind(let byte?): "unknown change record kind \(byte)"
        case .unknownKind(nil): "empty change record"
        case .truncated(let field): "change record is malformed at field \(field)"
        case .trailingBytes: "bytes after the end of the change record"
        }
    }
}
