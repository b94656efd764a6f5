import Foundation
import Logbook
import LogbookCRDT

/// Entity search with The Goodies' ranking, served from n-gram indexes instead of a scan,
/// plus BM25 over names and content for large corpora. Kept from the `entity/` records.
///
/// Applying a change only records the entity's new fields and marks it dirty; the indexes
/// catch up on the next query (one entity re-indexed once however many changes it had), so
/// replaying a long log costs little more than reading it.
public final class SearchIndex: MaterializedView, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.

    /// One search hit.
    public struct Result: Equatable, Sendable {
        /// The entity id.
        public var id: String
        /// `entity_type`, nil when the record has none.
        public var entityType: String?
        /// The entity's name ("" when it has none).
        public var name: String
        /// The score.
        public var score: Double
        /// Why it matched, as The Goodies reports: `name` → [name], `content` → reasons.
        public var highlights: [String: [String]]
    }

    /// An entity as search sees it.
    struct Document {
        var id: String
        var type: String?
        var name: String?
        /// Content columns without the `content.` prefix, ordered by the offset of their
        /// current value (file order for imported entities).
        var content: [(key: String, value: Value, offset: UInt64)] = []
        /// The offset of the record's first change: insertion order, for ties.
        var sequence: UInt64
        var alive = true

        /// Whether the document passes a query's type filter: only when the filter names
        /// its type (an untyped document never does). Callers skip the call when there is
        /// no filter, so a query without one never reads the document.
        func passes(_ types: Set<String>) -> Bool {
            type.map(types.contains) ?? false
        }
    }

    /// Lower-cased texts derived from a document when it is indexed (a class: scoring
    /// passes it around thousands of times per query, one reference count each). Immutable,
    /// so a rebuild reads them from two threads.
    final class Texts: Sendable {
        let name: [UInt32]
        let content: [UInt32]?
        let stringValues: [(key: String, original: String, lowered: [UInt32])]

        init(
            name: [UInt32], content: [UInt32]?,
            stringValues: [(key: String, original: String, lowered: [UInt32])]
        ) {
            self.name = name
            self.content = content
            self.stringValues = stringValues
        }
    }

    /// The view's name.
    public let name = "search"
    /// See `MaterializedView`: this view's state is its own, so a replay may apply it on a
    /// thread of its own.
    public var replaysIndependently: Bool { true }
    let lock = NSLock()
    var documents: [Document] = []
    var texts: [Texts?] = []
    /// What score bounds need of each indexed slot, packed (nil texts: not indexed).
    var facts: [SlotFacts] = []
    /// Each indexed slot's name as a character histogram (similarity bounds); grown on
    /// indexing, meaningful only where `facts` says indexed.
    var nameHistograms: [CharacterHistogram] = []
    /// A query's per-slot hits, kept clear between queries (allocating and zeroing one per
    /// query cost more than the marking).
    var scratchMarks = CandidateMarks.Scratch()
    var slots: [String: Int32] = [:]
    var dirty: Set<Int32> = []
    var namePostings = GramPostings()
    var contentPostings = GramPostings()
    /// Each top-level string value of each document, as its own posting "document": the
    /// value id. `valueOwners[id]` is the slot; ids below `firstValueIds[slot]` are stale.
    var valuePostings = GramPostings()
    var valueOwners: [Int32] = []
    var firstValueIds: [Int32] = []
    var nameBigrams = NameBigrams()
    /// Kept with the other indexes, so the first BM25 query finds it built.
    var bm25 = BM25Index()
    /// Documents indexed since the postings were last rebuilt (stale postings grow with it).
    var reindexed = 0

    /// An empty view; register it in `LogbookOptions.views`.
    public init() {}

    /// See `MaterializedView`.
    public func reset() {
        lock.lock()
        defer { lock.unlock() }
        documents = []
        texts = []
        facts = []
        nameHistograms = []
        slots = [:]
        dirty = []
        namePostings = GramPostings()
        contentPostings = GramPostings()
        valuePostings = GramPostings()
        valueOwners = []
        firstValueIds = []
        nameBigrams = NameBigrams()
        bm25 = BM25Index()
        reindexed = 0
    }

    /// See `MaterializedView`.
    public func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        guard change.recordId.hasPrefix(GoodiesRecords.entityPrefix) else { return }
        let id = String(change.recordId.dropFirst(GoodiesRecords.entityPrefix.count))
        lock.lock()
        defer { lock.unlock() }
        guard let column = change.colName else {
            if let slot = slots.removeValue(forKey: id) {
                documents[Int(slot)].alive = false
                dirty.insert(slot)
            }
            return
        }
        let slot: Int32
        if let existing = slots[id] {
            slot = existing
        } else {
            slot = Int32(documents.count)
            slots[id] = slot
            documents.append(Document(id: id, sequence: offset))
            texts.append(nil)
            facts.append(SlotFacts())
            dirty.insert(slot)  // a new entity is indexed whatever its first column
        }
        let value = change.value
        switch column {
        case GoodiesRecords.entityType:
            // The type is read from the document itself; the indexes do not hold it.
            documents[Int(slot)].type = value?.stringValue
        case GoodiesRecords.name:
            documents[Int(slot)].name = value?.stringValue
            dirty.insert(slot)
        default:
            guard column.hasPrefix(GoodiesRecords.contentPrefix) else { return }
            dirty.insert(slot)
            let key = String(column.dropFirst(GoodiesRecords.contentPrefix.count))
            documents[Int(slot)].content.removeAll { $0.key == key }
            if let value { documents[Int(slot)].content.append((key, value, offset)) }
        }
    }

    /// See `MaterializedView`: every live entity's type, name, content (in order) and
    /// insertion order.
    public func digest() -> StateDigest {
        lock.lock()
        defer { lock.unlock() }
        var builder = StateDigestBuilder()
        for document in documents.filter(\.alive).sorted(by: { $0.id < $1.id }) {
            var text = "\(document.id)\u{0}\(document.type ?? "\u{1}")\u{0}"
            text += "\(document.name ?? "\u{1}")\u{0}\(document.sequence)"
            for member in document.content {
                text += "\u{0}\(member.key)\u{0}\(PythonJSON.dumps(member.value))"
            }
            builder.combine(text)
        }
        return builder.finalize()
    }

    /// Live entities.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return slots.count
    }

    // MARK: Indexing (callers hold `lock`)

    /// Brings the indexes up to date with the documents changed since the last query.
    func flushDirty() {
        guard !dirty.isEmpty else { return }
        // A rebuild when stale postings would outnumber live ones, and for a first flush of
        // many (a replay's), which the rebuild spreads over two threads.
        if reindexed + dirty.count > max(1024, 2 * slots.count)
            || (reindexed == 0 && dirty.count > 1024)
        {
            rebuildIndexes()
            return
        }
        for slot in dirty.sorted() { index(slot) }
        dirty = []
        normalizePostings()
    }

    private func normalizePostings() {
        namePostings.normalize()
        contentPostings.normalize()
        valuePostings.normalize()
    }

    /// Indexes every live document again: the texts first, then the posting lists built on
    /// two threads (`RebuiltPostings`), as adding them one document at a time was most of
    /// a rebuild and used one core.
    private func rebuildIndexes() {
        reindexed = 0
        valueOwners = []
        var alive: [Int32] = []
        for slot in documents.indices {
            guard documents[slot].alive else {
                texts[slot] = nil
                facts[slot] = SlotFacts()
                continue
            }
            alive.append(Int32(slot))
            derive(Int32(slot))
        }
        let built = RebuiltPostings.build(
            alive, texts: texts, firstValueIds: firstValueIds)
        namePostings = built.names
        contentPostings = built.content
        valuePostings = built.values
        nameBigrams = built.bigrams
        bm25 = built.bm25
        dirty = []
        normalizePostings()
    }

    private func index(_ slot: Int32) {
        bm25.remove(slot)
        guard documents[Int(slot)].alive else {
            texts[Int(slot)] = nil
            facts[Int(slot)] = SlotFacts()
            nameBigrams.remove(slot)
            return
        }
        let derived = derive(slot)
        contentPostings.add(slot, text: derived.content ?? [])
        RebuiltPostings.addNamesValuesAndTerms(
            slot, derived, firstValueId: firstValueIds[Int(slot)], names: &namePostings,
            values: &valuePostings, bigrams: &nameBigrams, bm25: &bm25)
    }

    /// A live document's texts, facts and name histogram, and ids for its string values;
    /// the posting lists are the caller's.
    @discardableResult
    private func derive(_ slot: Int32) -> Texts {
        reindexed += 1
        let derived = Self.texts(of: documents[Int(slot)])
        texts[Int(slot)] = derived
        facts[Int(slot)] = SlotFacts(
            indexed: true, hasContent: derived.content != nil,
            nameLength: Int32(clamping: derived.name.count),
            stringValues: UInt16(clamping: derived.stringValues.count))
        if nameHistograms.count <= Int(slot) {
            nameHistograms.append(
                contentsOf: Array(
                    repeating: CharacterHistogram(), count: Int(slot) + 1 - nameHistograms.count))
        }
        nameHistograms[Int(slot)] = CharacterHistogram(derived.name)
        if firstValueIds.count <= Int(slot) {
            firstValueIds.append(
                contentsOf: Array(repeating: 0, count: Int(slot) + 1 - firstValueIds.count))
        }
        firstValueIds[Int(slot)] = Int32(valueOwners.count)
        valueOwners.append(contentsOf: Array(repeating: slot, count: derived.stringValues.count))
        return derived
    }

    /// The BM25 tokens of a document: its name's, then its content's.
    static func tokens(_ texts: Texts) -> [String] {
        BM25Index.tokens(texts.name) + BM25Index.tokens(texts.content ?? [])
    }

    static func texts(of document: Document) -> Texts {
        let content: [UInt32]? =
            document.content.isEmpty
            ? nil
            : scalars(
                PythonJSON.dumps(members: document.content.map { ($0.key, $0.value) }).lowercased())
        return Texts(
            name: scalars((document.name ?? "").lowercased()), content: content,
            stringValues: document.content.compactMap { member in
                guard case .string(let string) = member.value else { return nil }
                return (member.key, string, scalars(string.lowercased()))
            })
    }

    static func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }
}
