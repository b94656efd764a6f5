import LogbookCRDT

// One-call writes return their changes in an array the engine keeps and writes the next
// write's changes over. A caller that lets go of what it was returned before its next write
// (most do: the result is discardable) then costs no allocation and no free of an array per
// write, and its changes are destroyed in code specialized for `Change` rather than through
// the generic type's value witnesses: about a tenth of a one-change write's instructions
// (docs/benchmarks.md, session 48). A caller that keeps the array keeps it intact: the next
// write finds it shared and copies it before writing (copy on write).
extension Logbook {
    /// The most changes the kept array may have room for: a write of more fields leaves
    /// its array to its caller alone. The kept array holds the last write's ids and values
    /// until the next write (the state's own, unless it has replaced them since), so this
    /// bounds what it can keep alive that the state does not.
    static let reusableChangesCapacityMax = 16

    /// Takes the kept array out of the instance, so that the write that fills it holds the
    /// only reference the engine has. Called with the lock held.
    @inline(__always)
    func takeReusableChanges() -> [Change<String, String, Value>] {
        var taken: [Change<String, String, Value>] = []
        swap(&taken, &reusableChanges)
        return taken
    }

    /// Keeps `changes`, the array a write is about to return, for the next write to fill.
    /// Called with the lock held.
    @inline(__always)
    func keepForReuse(_ changes: [Change<String, String, Value>]) {
        if changes.capacity <= Self.reusableChangesCapacityMax { reusableChanges = changes }
    }

    /// `change` as an array of one (none when nil), in the kept array. Called with the lock
    /// held.
    @inline(__always)
    func reusedArray(holding change: consuming Change<String, String, Value>?)
        -> [Change<String, String, Value>]
    {
        var written = WrittenChanges(over: takeReusableChanges())
        // Moved in, not copied: a copy of a change goes through the generic type's witness.
        if case .some(let made) = consume change { written.append(made) }
        let changes = written.finished()
        keepForReuse(changes)
        return changes
    }
}
