/// A multi-word query's word lists — per word, the entities whose name may contain it and
/// those whose content may — marked by search a few at a time while the floor under the
/// final scores rises.
///
/// Lists whose shares of the score, with the similarity term's 1, cannot lift an entity
/// that only they name to the floor need not be marked in full: they are applied only to
/// the entities already marked (MaxScore's non-essential lists). The longest lists are left
/// out first; of the others, the one with the most score per entity is marked next, as the
/// likeliest to raise the floor for the least marking. Identical lists (the words of a
/// phrase that always appear together) go as one, with their shares added. For "living
/// room speaker" this spares the third of the corpus whose names contain "room".
struct QueryWordLists {
    struct List {
        var slots: [Int32]
        /// The most this list adds to a score: 1.5 for a word in the name, 0.5 in content.
        var share: Double
        var inName: Bool
    }

    /// Lists with the same slots.
    struct Group {
        var lists: [List]
        var share: Double
        var marked = false
        var count: Int { lists.first?.slots.count ?? 0 }
        /// The slots of every list of the group.
        var slots: [Int32] { lists.first?.slots ?? [] }
    }

    /// The groups of non-empty lists, longest first.
    private(set) var groups: [Group] = []

    init(name: [[Int32]], content: [[Int32]]) {
        let lists =
            name.map { List(slots: $0, share: 1.5, inName: true) }
            + content.map { List(slots: $0, share: 0.5, inName: false) }
        for list in lists where !list.slots.isEmpty {
            if let same = groups.firstIndex(where: {
                $0.count == list.slots.count && SortedSlots.equal($0.lists[0].slots, list.slots)
            }) {
                groups[same].lists.append(list)
                groups[same].share += list.share
            } else {
                groups.append(Group(lists: [list], share: list.share))
            }
        }
        groups.sort { $0.count > $1.count }
    }

    /// The group to mark in full next, given `floor`, or nil when every group not marked
    /// can be left out. Longest first, each is left out while the shares left out, with the
    /// similarity term, stay below the floor: an entity that only they name scores below it.
    func nextToMark(floor: Double) -> Int? {
        var ceiling = 1.0  // the similarity term
        var next: Int?
        for index in groups.indices where !groups[index].marked {
            if ceiling + groups[index].share < floor {
                ceiling += groups[index].share
            } else if next.map({ scorePerEntity(index) > scorePerEntity($0) }) ?? true {
                next = index
            }
        }
        return next
    }

    private func scorePerEntity(_ index: Int) -> Double {
        groups[index].share / Double(max(1, groups[index].count))
    }

    /// Marks the group at `index` in full.
    mutating func mark(_ index: Int, in marks: inout CandidateMarks) {
        apply(index, to: &marks, touchedOnly: false)
    }

    /// Applies the groups not marked to the entities already marked.
    mutating func markRemainingOnTouched(in marks: inout CandidateMarks) {
        for index in groups.indices where !groups[index].marked {
            apply(index, to: &marks, touchedOnly: true)
        }
    }

    /// Each list's word counted for its entities (one closure per case, so each loop is
    /// specialized).
    private mutating func apply(_ index: Int, to marks: inout CandidateMarks, touchedOnly: Bool) {
        for list in groups[index].lists {
            switch (list.inName, touchedOnly) {
            case (true, false): marks.mark(list.slots) { $0.countNameWord() }
            case (false, false): marks.mark(list.slots) { $0.countContentWord() }
            case (true, true): marks.markTouched(list.slots) { $0.countNameWord() }
            case (false, true): marks.markTouched(list.slots) { $0.countContentWord() }
            }
        }
        groups[index].marked = true
    }
}
