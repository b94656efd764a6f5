extension ReplicaStorage {
    /// Past this many changed entries since the last digest, the next one recomputes every
    /// entry instead of keeping a list: the list would cost more than the walk it saves.
    var staleListLimit: Int { entries.count / 4 + 1024 }

    /// Records that the entry numbered `number` changed, so the next digest recomputes its
    /// term. A flag check while every entry is stale anyway (an opened replica before its
    /// first digest), so replay pays next to nothing.
    @inline(__always)
    mutating func noteChanged(_ number: Int) {
        guard !digest.allStale, !entries[number].digestStale else { return }
        entries[number].digestStale = true
        digest.staleNumbers.append(number)
        if digest.staleNumbers.count > staleListLimit {
            digest.allStale = true
            digest.staleNumbers.removeAll()
        }
    }

    /// The sum of every entry's term, recomputing only the entries changed since the last
    /// call (or all of them, the first time). Each call must pass the same `terms`.
    mutating func digestSum(_ terms: inout some EntryDigesting) -> DigestSum {
        if digest.terms.count < entries.count {
            digest.terms.append(
                contentsOf: Array(repeating: .zero, count: entries.count - digest.terms.count))
        }
        if digest.allStale {
            var sum = DigestSum.zero
            for number in entries.indices {
                let term = term(of: number, &terms)
                digest.terms[number] = term
                entries[number].digestStale = false
                sum = sum + term
            }
            digest.sum = sum
            digest.allStale = false
        } else {
            for number in digest.staleNumbers {
                let term = term(of: number, &terms)
                digest.sum = digest.sum - digest.terms[number] + term
                digest.terms[number] = term
                entries[number].digestStale = false
            }
        }
        digest.staleNumbers.removeAll(keepingCapacity: true)
        return digest.sum
    }

    private func term(of number: Int, _ terms: inout some EntryDigesting) -> DigestSum {
        switch entries[number].status {
        case .absent: return .zero
        case .live: return terms.live(entries[number].id, entries[number].record)
        case .tombstoned: return terms.tombstoned(entries[number].id)
        }
    }
}

/// The running digest of a `ReplicaStorage`: each entry's last computed term, their sum,
/// and which entries changed since.
struct IncrementalDigest {
    /// The term of each entry number as of the last digest.
    var terms: ContiguousArray<DigestSum> = []
    var sum = DigestSum.zero
    /// Entries changed since the last digest (each once: its `digestStale` flag is set).
    var staleNumbers: [Int] = []
    /// Every entry is to be recomputed; nothing is listed. True for a new state.
    var allStale = true
}

extension ReplicaState {
    /// The sum of every record's and tombstone's term, kept up to date incrementally: a
    /// call recomputes the terms of the records changed since the previous call, O(changed
    /// records), and the first call all of them. Every call must pass the same `terms`.
    package func digestSum(_ terms: inout some EntryDigesting) -> DigestSum {
        storage.digestSum(&terms)
    }
}
