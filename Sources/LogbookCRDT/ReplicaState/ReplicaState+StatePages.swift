extension ReplicaState {
    /// Every record and tombstone with an id after `after` and a change above local version
    /// 0, as ids and entry numbers (`StatePageCandidates`). Complexity: O(records ever
    /// numbered); no record is retained.
    public func statePageCandidates(after: String?) -> StatePageCandidates {
        StatePageCandidates(candidates: storage.statePageCandidates(after: after))
    }

    /// The page of state the front of `candidates` (ordered by `order(changesMax:)`) gives:
    /// whole records in ascending id order until they hold at least `changesMax` changes,
    /// as `ChangedState.firstById(changesMax:)` chooses them; and the id after which the
    /// next page starts, nil when no candidate is left. A candidate whose entry no longer
    /// holds its id (its tombstone was collected since the walk) is passed over.
    public func statePage(
        from candidates: StatePageCandidates, changesMax: Int
    ) -> (page: ChangedState<String, String, Value>, nextAfter: String?) {
        var page: [(id: String, entry: ChangedState<String, String, Value>.Entry)] = []
        var changes = 0
        var considered = 0
        while considered < candidates.orderedCount && changes < changesMax {
            let (id, source) = candidates.candidates[considered]
            considered += 1
            let entry: ChangedState<String, String, Value>.Entry?
            switch source {
            case .entry(let number): entry = storage.stateEntry(number, id: id)
            case .deletion(let deletion): entry = .deleted(deletion)
            }
            guard let entry else { continue }
            changes += ChangedState.changeCount(of: entry, id: id, since: 0)
            page.append((id, entry))
        }
        let nextAfter =
            considered > 0 && considered < candidates.count
            ? candidates.candidates[considered - 1].id : nil
        return (ChangedState(since: 0, entries: page), nextAfter)
    }
}

extension ReplicaStorage {
    /// `ReplicaState.statePageCandidates(after:)`'s walk, reading each entry in place.
    func statePageCandidates(after: String?) -> [(
        id: String, source: StatePageCandidates.Source
    )] {
        var candidates: [(id: String, source: StatePageCandidates.Source)] = []
        for number in entries.indices {
            switch entries[number].status {
            case .live:
                guard entries[number].record.highestLocalDbVersion > 0 else { continue }
            case .tombstoned:
                guard let tombstone = tombstones[number], tombstone.localDbVersion > 0 else {
                    continue
                }
            default:
                continue
            }
            let id = entries[number].id
            if let after, id <= after { continue }
            candidates.append((id, .entry(number)))
        }
        return candidates
    }

    /// Entry `number` as state changes above local version 0, if it still holds `id` and
    /// has any.
    func stateEntry(_ number: Int, id: String) -> ChangedState<String, String, Value>.Entry? {
        guard entries.indices.contains(number), entries[number].id == id else { return nil }
        switch entries[number].status {
        case .live where entries[number].record.highestLocalDbVersion > 0:
            return .live(entries[number].record)
        case .tombstoned:
            guard let tombstone = tombstones[number], tombstone.localDbVersion > 0 else {
                return nil
            }
            return .deleted(tombstone)
        default:
            return nil
        }
    }
}
