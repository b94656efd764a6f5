import Foundation
import Logbook
import LogbookCRDT
import LogbookData

/// Full-text search over chosen properties of one model type: Okapi BM25 (k1 = 1.2,
/// b = 0.75, the ranking `SearchIndex.searchBM25` gives The Goodies' entities), kept by
/// the Logbook as a view. Register it in `LogbookOptions.views` and ask
/// `Logbook.search(_:_:limit:)`.
///
/// ```swift
/// let messageText = ModelSearchIndex(Message.self, on: ["text", "toolCalls"])
/// options.views = [messageText]
/// let hits = try logbook.search(messageText, "kitchen lamp", limit: 20)
/// ```
///
/// A record's document is the text of its searched columns: a string column's string, and
/// every string inside an array or object column (a message's tool calls), lower-cased and
/// cut into runs of letters and digits. Applying a change only notes the record's new text;
/// the postings catch up at the next search, so a replay costs little more than reading.
/// Checkpointed with the replica's snapshots (`LogbookOptions.viewCheckpoints`); a
/// restored or rebuilt index answers as the kept one.
public final class ModelSearchIndex<Model: LogbookModel>: CheckpointableView,
    @unchecked Sendable
{
    // @unchecked: all state is guarded by `lock`; the Logbook applies changes under its own
    // lock and searches come from any thread.
    /// The view's name: "search", the model's prefix and the columns, unless one was given.
    public let name: String
    /// The searched columns: coding keys of the model's stored properties.
    public var columns: [String] { columnList.names }
    /// See `MaterializedView`: the index's state is its own.
    public var replaysIndependently: Bool { true }

    /// One searched record: its id and each searched column's text (nil: absent).
    /// A class: a search reads a candidate's id hundreds of thousands of times for a term
    /// every record holds, and a struct's copy retained its texts each time.
    final class Document {
        let recordId: String
        var texts: [String?]

        init(recordId: String, texts: [String?]) {
            self.recordId = recordId
            self.texts = texts
        }
    }

    let columnList: ModelColumnList
    let prefix: String
    let lock = NSLock()
    /// By slot; nil for a slot whose record was deleted.
    var documents: [Document?] = []
    var slots: [String: Int32] = [:]
    /// Slots whose text changed since the postings were last brought up to date.
    var dirty: Set<Int32> = []
    /// Slots freed by a deletion, once the postings no longer hold them.
    var freeSlots: [Int32] = []
    var postings = BM25Index()

    /// A search of `type`'s records over `columns` (coding keys); `name` must be unique
    /// among the Logbook's views.
    public init(_ type: Model.Type, name: String? = nil, on columns: [String]) {
        self.name = name ?? "search \(Model.recordPrefix)(\(columns.joined(separator: ",")))"
        self.columnList = ModelColumnList(columns)
        self.prefix = Model.recordPrefix
    }

    /// See `MaterializedView`.
    public func reset() {
        lock.lock()
        defer { lock.unlock() }
        documents = []
        slots = [:]
        dirty = []
        freeSlots = []
        postings = BM25Index()
    }

    /// See `MaterializedView`: notes the record's new text (or its deletion).
    public func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        guard change.recordId.hasPrefix(prefix) else { return }
        lock.lock()
        defer { lock.unlock() }
        guard let column = change.colName else {
            if let slot = slots.removeValue(forKey: change.recordId) {
                documents[Int(slot)] = nil
                dirty.insert(slot)
            }
            return
        }
        guard let position = columnList.positions[column] else { return }
        let slot = slot(of: change.recordId)
        documents[Int(slot)]?.texts[position] = change.value.flatMap(Self.text)
        dirty.insert(slot)
    }

    /// The record's slot, made for a record not seen yet.
    private func slot(of recordId: String) -> Int32 {
        if let slot = slots[recordId] { return slot }
        let document = Document(
            recordId: recordId, texts: Array(repeating: nil, count: columns.count))
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            documents[Int(slot)] = document
        } else {
            slot = Int32(truncatingIfNeeded: documents.count)
            documents.append(document)
        }
        slots[recordId] = slot
        return slot
    }

    /// The searchable text of a column's value: a string itself, the strings inside an
    /// array or object (object members in key order) joined by spaces; nil for others.
    static func text(of value: Value) -> String? {
        switch value {
        case .string(let string):
            return string
        case .array(let elements):
            let texts = elements.compactMap(text)
            return texts.isEmpty ? nil : texts.joined(separator: " ")
        case .object(let members):
            let texts = members.sorted { $0.key < $1.key }.compactMap { text(of: $0.value) }
            return texts.isEmpty ? nil : texts.joined(separator: " ")
        default:
            return nil
        }
    }

    /// Brings the postings up to date with the records changed since the last search
    /// (callers hold `lock`).
    func flushDirty() {
        for slot in dirty.sorted() {
            guard let document = documents[Int(slot)] else {
                postings.remove(slot)
                freeSlots.append(slot)
                continue
            }
            postings.add(
                slot,
                tokens: document.texts.flatMap { $0.map(BM25Index.tokens(lowercasing:)) ?? [] })
        }
        dirty = []
    }

    /// See `MaterializedView`: every live record's id and searched texts.
    public func digest() -> StateDigest {
        lock.lock()
        defer { lock.unlock() }
        var builder = StateDigestBuilder()
        for document in documents.compactMap({ $0 }).sorted(by: { $0.recordId < $1.recordId }) {
            var text = document.recordId
            for member in document.texts { text += "\u{0}" + (member ?? "\u{1}") }
            builder.combine(text)
        }
        return builder.finalize()
    }

    /// Records with a searched column.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return slots.count
    }
}
