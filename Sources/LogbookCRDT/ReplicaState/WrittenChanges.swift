/// The changes a local write makes, written over the elements of an array a previous write
/// filled, so that a caller who keeps one array for its writes (as the engine does, between
/// calls whose callers let go of what they were returned) neither allocates nor frees one
/// per write.
///
/// Overwriting an element destroys the old one in code specialized for `Change`. An array
/// freed, or emptied by `removeAll`, destroys each element through the generic type's value
/// witnesses instead, about 170 instructions a change, and its storage is freed and
/// allocated again for the next write: together about a tenth of a one-call write's
/// instructions (docs/benchmarks.md, session 48). The engine's one-call deletions, which
/// the state answers with one change, put it in their kept array through this too.
package struct WrittenChanges {
    /// The array written into: the first `count` elements are this write's, the rest a
    /// previous write's, until `finished()` drops them.
    @usableFromInline var array: [Change<String, String, Value>]
    /// The changes written so far.
    @usableFromInline package internal(set) var count = 0

    /// Writes over `array`'s elements. If `array` is shared, the first change written copies
    /// it (copy on write), as any mutation would.
    @inlinable package init(over array: [Change<String, String, Value>]) {
        self.array = array
    }

    /// Adds the write's next change, made of these fields.
    ///
    /// An element it replaces is overwritten field by field: assigned whole, the old
    /// change is destroyed by a call to `Change<String, String, Value>`'s value witness,
    /// which walks the generic type's fields through their metadata (as destroying an array
    /// of changes does) even in code specialized for the type.
    @inline(__always)
    mutating func append(
        recordId: String, colName: String?, value: Value?, colVersion: UInt64,
        dbVersion: UInt64, nodeId: NodeId, localDbVersion: UInt64, flags: UInt32
    ) {
        if count < array.count {
            array[count].overwrite(
                recordId: recordId, colName: colName, value: value, colVersion: colVersion,
                dbVersion: dbVersion, nodeId: nodeId, localDbVersion: localDbVersion,
                flags: flags)
            count += 1
        } else {
            append(
                Change(
                    recordId: recordId, colName: colName, value: value, colVersion: colVersion,
                    dbVersion: dbVersion, nodeId: nodeId, localDbVersion: localDbVersion,
                    flags: flags))
        }
    }

    /// Adds the write's next change.
    @inlinable @inline(__always)
    package mutating func append(_ change: __owned Change<String, String, Value>) {
        if count < array.count {
            array[count] = change
        } else if array.capacity == 0 {
            // An array with no storage yet takes a literal's: growing it for the append goes
            // through the general reallocation, about 200 instructions.
            array = [change]
        } else {
            array.append(change)
        }
        count += 1
    }

    /// Room for `additional` more changes than the array holds now (writes of several
    /// fields, and batches). None is reserved for one: a single change that does not fit
    /// goes into an array literal (`append`).
    mutating func reserveCapacity(forMore additional: Int) {
        guard additional > 1, count + additional > array.capacity else { return }
        array.reserveCapacity(count + additional)
    }

    /// The write's changes: the array, with what a previous write left past them dropped.
    @inlinable package consuming func finished() -> [Change<String, String, Value>] {
        if count < array.count { array.removeSubrange(count...) }
        return array
    }
}

extension Change<String, String, Value> {
    /// Replaces every field, one assignment each (see `WrittenChanges.append`).
    @inline(__always)
    fileprivate mutating func overwrite(
        recordId: String, colName: String?, value: Value?, colVersion: UInt64,
        dbVersion: UInt64, nodeId: NodeId, localDbVersion: UInt64, flags: UInt32
    ) {
        self.recordId = recordId
        self.colName = colName
        self.value = value
        self.colVersion = colVersion
        self.dbVersion = dbVersion
        self.nodeId = nodeId
        self.localDbVersion = localDbVersion
        self.flags = flags
    }
}
