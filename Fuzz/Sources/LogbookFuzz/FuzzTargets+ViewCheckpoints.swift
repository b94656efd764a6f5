import Logbook
import LogbookViews

/// A view checkpoint's state as a hostile directory could hold it. The file's CRC is no
/// defence against a file written on purpose, so each built-in view reads the input as its
/// state: it must refuse it or hold a state it can answer queries on, save again and read
/// back unchanged (docs/views.md, checkpoints).
extension FuzzTarget {
    static func viewCheckpoints(_ bytes: UnsafeRawBufferPointer) {
        let state = Array(bytes)
        let names = leadingStrings(of: state)
        if let graph = restoredAndSavedAgain(GraphIndex.init, from: state) {
            _ = graph.statistics().goodiesJSON
            _ = graph.invalidRelationships()
            if let first = names.first, let last = names.last {
                _ = graph.bfs(from: first, maxDepth: 4)
                _ = graph.findPath(from: first, to: last, maxDepth: 4)
                _ = graph.subgraph(around: first, depth: 2)
                _ = graph.degreeCentrality(of: first)
            }
        }
        if let search = restoredAndSavedAgain(SearchIndex.init, from: state) {
            // Differential: the indexes built from the restored entities must answer as a
            // scan of them does.
            for query in names + ["", "light", "a"] {
                precondition(
                    search.search(query, limit: 20) == search.searchByScanning(query, limit: 20),
                    "search differs from its scan for '\(query)'")
                precondition(
                    search.searchBM25(query, limit: 20)
                        == search.searchBM25ByScanning(query, limit: 20),
                    "BM25 differs from its scan for '\(query)'")
            }
        }
        if let bridges = restoredAndSavedAgain(BridgeStatsView.init, from: state) {
            _ = bridges.summaries()
            _ = bridges.buckets()
            _ = bridges.predict(weekday: 2, hour: 8)
        }
    }

    /// The view restored from `state`, or nil when it refuses it. What it accepts it must
    /// save as a state that restores to the same digest and saves to the same bytes.
    private static func restoredAndSavedAgain<View: CheckpointableView>(
        _ makeView: () -> View, from state: [UInt8]
    ) -> View? {
        let view = makeView()
        guard (try? view.restoreCheckpoint(state)) != nil else { return nil }
        let saved = view.checkpointState()
        let again = makeView()
        do {
            try again.restoreCheckpoint(saved)
        } catch {
            preconditionFailure("\(view.name): a restored state, saved, does not restore: \(error)")
        }
        precondition(again.digest() == view.digest(), "\(view.name): the digest changed")
        precondition(again.checkpointState() == saved, "\(view.name): saving is not a fixed point")
        return view
    }

    /// The strings at the state's start, read as the graph and search views lay out their
    /// first entity (a count, an id, an optional type, an optional name): ids and names the
    /// queries can start from.
    private static func leadingStrings(of state: [UInt8]) -> [String] {
        var reader = CheckpointReader(state)
        var strings: [String] = []
        guard (try? reader.readCount()) != nil, let id = try? reader.readString() else {
            return strings
        }
        strings.append(id)
        for _ in 0..<2 {
            do {
                if let string = try reader.readOptionalString() { strings.append(string) }
            } catch { break }
        }
        return strings
    }
}
