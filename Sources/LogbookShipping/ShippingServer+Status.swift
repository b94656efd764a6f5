import Foundation
import Hummingbird

/// The status page and the Prometheus metrics.
extension ShippingServer {
    func metricsText() -> Response {
        var lines: [String] = []
        func gauge(_ name: String, _ help: String, _ value: UInt64, type: String = "gauge") {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            lines.append("\(name) \(value)")
        }
        gauge("logbook_next_offset", "The offset the next append gets.", logbook.nextOffset)
        gauge("logbook_start_offset", "The log's first offset.", logbook.startOffset)
        gauge("logbook_segments", "Segment files.", UInt64(logbook.segmentCount))
        gauge("logbook_size_bytes", "Bytes of segments on disk.", UInt64(max(0, logbook.sizeBytes)))
        gauge(
            "logbook_history_start", "Pulls from below this need a snapshot.", logbook.historyStart)
        gauge("logbook_tombstones", "Tombstones held.", UInt64(logbook.tombstoneCount()))
        gauge(
            "logbook_fenced_records", "Collected records still fenced against local writes.",
            UInt64(logbook.fencedRecordCount))
        lines.append("# HELP logbook_state_digest_info The replica's state digest, as a label.")
        lines.append("# TYPE logbook_state_digest_info gauge")
        lines.append("logbook_state_digest_info{digest=\"\(logbook.stateDigest())\"} 1")
        for counter in metrics.snapshot() {
            gauge(counter.name, counter.help, UInt64(counter.value), type: "counter")
        }
        lines.append("# HELP logbook_peer_offset A peer's pull cursor or acknowledged offset.")
        lines.append("# TYPE logbook_peer_offset gauge")
        for (peer, entry) in ledger.all.sorted(by: { $0.key < $1.key }) {
            let label = peer.replacingOccurrences(of: "\"", with: "'")
            if let cursor = entry.cursor {
                lines.append("logbook_peer_offset{peer=\"\(label)\",kind=\"cursor\"} \(cursor)")
            }
            if let acknowledged = entry.acknowledged {
                lines.append("logbook_peer_offset{peer=\"\(label)\",kind=\"ack\"} \(acknowledged)")
            }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\n") + "\n")))
    }

    func statusPage() -> Response {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(
                of: "<", with: "&lt;"
            )
            .replacingOccurrences(of: ">", with: "&gt;")
        }
        let next = logbook.nextOffset
        var rows = ""
        for (peer, entry) in ledger.all.sorted(by: { $0.key < $1.key }) {
            let lag = entry.acknowledged.map { next > $0 ? "\(next - $0)" : "0" } ?? "—"
            let role =
                entry.registered == true ? "registered" : entry.removed == true ? "removed" : ""
            rows +=
                "<tr><td>\(escape(peer))</td><td>\(entry.nodeId.map(String.init) ?? "—")</td>"
                + "<td>\(role)</td>"
                + "<td>\(entry.cursor.map(String.init) ?? "—")</td>"
                + "<td>\(entry.acknowledged.map(String.init) ?? "—")</td><td>\(lag)</td></tr>"
        }
        let counters = metrics.snapshot().map { "<tr><td>\($0.name)</td><td>\($0.value)</td></tr>" }
            .joined()
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>Logbook node \(logbook.nodeId)</title>
            <style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}</style>
            </head><body><h1>Logbook node \(logbook.nodeId)</h1>
            <p>directory <code>\(escape(logbook.directory))</code>; offsets \(logbook.startOffset)–\(next);
            \(logbook.segmentCount) segments, \(logbook.sizeBytes) bytes; \(logbook.tombstoneCount()) tombstones,
            GC collected below \(logbook.collectedBelow), \(logbook.fencedRecordCount) records fenced, history starts at
            \(logbook.historyStart)</p>
            <h2>Peers</h2><table><tr><th>peer</th><th>node</th><th>GC</th><th>pull cursor</th>
            <th>acknowledged</th><th>lag (offsets)</th></tr>\(rows)</table>
            <h2>Counters</h2><table>\(counters)</table></body></html>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
