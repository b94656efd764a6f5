import Foundation
import Hummingbird
import Prometheus

/// The status page and the Prometheus metrics.
extension ShippingServer {
    /// `GET /metrics`: the registry's text, after setting the gauges read from the log and
    /// the ledger (cheap reads; the state digest is not a metric, see `GET /status`).
    func metricsText() -> Response {
        guard let registry = configuration.metricsRegistry else {
            return Response(
                status: .notFound,
                body: .init(byteBuffer: ByteBuffer(string: "metrics are not enabled here\n")))
        }
        let gauges: [(String, String, UInt64)] = [
            ("logbook_next_offset", "The offset the next append gets.", logbook.nextOffset),
            ("logbook_durable_offset", "Every offset below it is durable.", logbook.durableOffset),
            ("logbook_start_offset", "The log's first offset.", logbook.startOffset),
            ("logbook_segments", "Segment files.", UInt64(logbook.segmentCount)),
            ("logbook_size_bytes", "Bytes of segments on disk.", UInt64(max(0, logbook.sizeBytes))),
            (
                "logbook_history_start", "Pulls from below this need a snapshot.",
                logbook.historyStart
            ),
            ("logbook_tombstones", "Tombstones held.", UInt64(logbook.tombstoneCount())),
            (
                "logbook_writable",
                "1 while writes succeed; 0 once one failed, until the log is reopened.",
                logbook.writeFailure == nil ? 1 : 0
            ),
            (
                "logbook_fenced_records", "Collected records still fenced against local writes.",
                UInt64(logbook.fencedRecordCount)
            ),
        ]
        for (name, help, value) in gauges {
            registry.makeGauge(descriptor: .init(name, help: help)).set(Double(value))
        }
        for (peer, entry) in ledger.all {
            for (kind, value) in [("cursor", entry.cursor), ("ack", entry.acknowledged)] {
                guard let value else { continue }
                registry.makeGauge(
                    descriptor: .init(
                        "logbook_peer_offset", help: "A peer's pull cursor or acknowledged offset."),
                    labels: [("peer", peer), ("kind", kind)]
                ).set(Double(value))
            }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    /// `GET /status`: the node, its offsets, its state digest and whether it can write, as
    /// JSON (the digest walks the whole state: ask when you need it, not on every scrape).
    /// 503, with `write_failure` naming the cause, once a write failed.
    func statusJSON() -> Response {
        let failure = logbook.writeFailure
        var body =
            #"{"node": \#(logbook.nodeId), "digest": "\#(logbook.stateDigest())", "#
            + #""next_offset": \#(logbook.nextOffset), "durable_offset": \#(logbook.durableOffset), "#
            + #""writable": \#(failure == nil)"#
        if let failure {
            let cause = Self.jsonString(String(describing: failure))
            body += #", "write_failure": \#(cause)"#
        }
        body += "}"
        return Response(
            status: failure == nil ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `GET /healthz` (the process answers) and `GET /readyz` (it can take writes: 503 with
    /// the cause once a write failed), on both listeners and without a token.
    func addProbes<Context: RequestContext>(to router: Router<Context>) {
        router.get("healthz") { _, _ in "ok\n" }
        router.get("readyz") { _, _ in
            guard let failure = self.logbook.writeFailure else { return Response.text("ready\n") }
            return Response.text("not ready: \(failure)\n", status: .serviceUnavailable)
        }
    }

    /// `text` as a JSON string literal, quotes and escapes included.
    static func jsonString(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The admin listener: the status page, `/status` and `/metrics` without a token, for a
    /// browser or a scraper on `ShippingConfiguration.adminHost` (loopback unless set) and
    /// `adminPort`. Plain HTTP; everything it serves only reads. `onRunning` receives the
    /// port it listens on.
    public func adminApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = Router()
        router.add(middleware: MetricsMiddleware())
        addProbes(to: router)
        router.get("metrics") { _, _ in self.metricsText() }
        router.get("status") { _, _ in self.statusJSON() }
        router.get("/") { _, _ in self.statusPage() }
        return Application(
            router: router, server: configuration.connections.http1(),
            configuration: .init(
                address: .hostname(configuration.adminHost, port: configuration.adminPort ?? 0)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) })
    }

    /// `GET /`: the node, its log, its peers with their lag drawn over the last minutes
    /// (`LagChart`), and its counters. It reloads itself every 5 s (no script).
    func statusPage() -> Response {
        let escape = StatusPageText.escaped
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
            <!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
            <title>Logbook node \(logbook.nodeId)</title>
            <style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}</style>
            </head><body><h1>Logbook node \(logbook.nodeId)</h1>
            <p>directory <code>\(escape(logbook.directory))</code>; offsets \(logbook.startOffset)–\(next);
            \(logbook.segmentCount) segments, \(logbook.sizeBytes) bytes; \(logbook.tombstoneCount()) tombstones,
            GC collected below \(logbook.collectedBelow), \(logbook.fencedRecordCount) records fenced, history starts at
            \(logbook.historyStart)</p>
            <h2>Peers</h2><table><tr><th>peer</th><th>node</th><th>GC</th><th>pull cursor</th>
            <th>acknowledged</th><th>lag (offsets)</th></tr>\(rows)</table>
            <h2>Lag over the last minutes (offsets not acknowledged)</h2>
            \(LagChart.svg(lagHistory.recorded))
            <h2>Counters</h2><table>\(counters)</table></body></html>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

extension Response {
    /// A plain-text answer.
    static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
