import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import Testing

// A crdt-lite client against `logbook serve`: it gets the form it asks for (by `format` or
// `Accept`), every answer names its form, and crdt-lite's own sync loop — push what is new
// since the last push, pull since the last `Logbook-Clock` — converges in either form,
// null values included. A client whose `since` is past the node's clock (the node was
// restored from an older copy) is sent everything, so it still gets the node's new writes.
@Suite(.serialized) struct CrdtLiteClientTests {
    /// A whole answer is built a window of about 16,384 changes at a time
    /// (`ShippingServer.windowChanges`), so it holds one window at once: it must still be
    /// `getChangesSince` exactly, with a transaction larger than a window kept whole.
    @Test func aWholeAnswerOfManyWindowsIsGetChangesSinceExactly() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        for start in stride(from: 0, to: 30_000, by: 1_000) {
            try await node.logbook.write(
                (start..<(start + 1_000)).map {
                    .insertOrUpdate("e/\($0)", fields: [("a", .int(Int64($0))), ("b", "x")])
                })
        }
        let wide = (0..<20_000).map { ("c\($0)", Value.int(Int64($0))) }
        try await node.logbook.insertOrUpdate("e/wide", fields: wide)
        for since: UInt64 in [0, 20_000] {
            let answer = try await node.send("/changes?since=\(since)&format=swift")
            #expect(answer.status == 200)
            let changes = try ChangeJSON.decodeArray(
                Data(answer.body.utf8), as: Change<String, String, Value>.self)
            #expect(changes == node.logbook.getChangesSince(since), "since \(since)")
            #expect(changes.count > 16_384 * 2, "since \(since): \(changes.count)")
        }
    }

    @Test func theFormIsTheOneAskedForAndEveryAnswerNamesIt() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        try await node.logbook.insertOrUpdate("lamp", fields: [("on", true)])
        let cases: [(query: String, accept: String?, form: String)] = [
            ("", nil, "rust"),
            ("", "application/json", "rust"),
            ("", "application/vnd.crdt-lite.swift+json", "swift"),
            ("", "application/json; format=swift", "swift"),
            ("", "application/json; format=rust", "rust"),
            ("&format=swift", "application/vnd.crdt-lite.rust+json", "swift"),
            ("&format=rust", nil, "rust"),
        ]
        for (query, accept, form) in cases {
            let answer = try await node.send(
                "/changes?since=0\(query)", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(answer.status == 200)
            #expect(
                answer.headers.first(name: ShippingHeaders.changeFormat) == form,
                "\(query) \(accept ?? "-")")
            #expect(answer.body.contains(form == "swift" ? #""recordId""# : #""record_id""#))
        }
        #expect(try await node.send("/changes?since=0&format=xml").status == 400)
    }

    @Test(arguments: ChangeJSONFormat.allCases)
    func crdtLitesSyncLoopConvergesWithANode(_ format: ChangeJSONFormat) async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        let client = CRDT<String, String, Value>(nodeId: 9)
        var pushedUpTo: UInt64 = 0  // the client's clock at its last push
        var pulledSince: UInt64 = 0  // the node's Logbook-Clock at the last pull
        for round in 0..<4 {
            _ = client.insertOrUpdate("client/\(round)", fields: [("n", .int(Int64(round)))])
            _ = client.insertOrUpdate("shared", fields: [("by", "client"), ("gone", .null)])
            try await node.logbook.insertOrUpdate(
                "node/\(round)", fields: [("n", .int(Int64(round))), ("note", .null)])
            try await node.logbook.insertOrUpdate("shared", fields: [("by", "node")])
            // Push: what the client changed since its last push, in the form asked for.
            let mine = client.getChangesSince(pushedUpTo)
            pushedUpTo = client.getClock().currentTime()
            let body = try mine.map {
                String(decoding: try ChangeJSON.encode($0, format: format), as: UTF8.self)
            }.joined(separator: "\n")
            let pushed = try await node.send("/changes", method: .POST, body: body)
            #expect(pushed.status == 200, "\(pushed.body)")
            // Pull: since the clock the last answer named, then remember this one's.
            let pulled = try await node.send(
                "/changes?since=\(pulledSince)&format=\(format.rawValue)")
            #expect(pulled.status == 200)
            let clock = try #require(
                pulled.headers.first(name: ShippingHeaders.clock).flatMap(UInt64.init))
            #expect(clock >= pulledSince)
            pulledSince = clock
            _ = client.mergeChanges(
                try JSONDecoder().decode(
                    [Change<String, String, Value>].self, from: Data(pulled.body.utf8)))
            // A write after the pull is picked up by the next round's pull.
            try await node.logbook.insertOrUpdate("late/\(round)", fields: [("n", 1)])
        }
        let last = try await node.send("/changes?since=\(pulledSince)&format=\(format.rawValue)")
        _ = client.mergeChanges(
            try JSONDecoder().decode(
                [Change<String, String, Value>].self, from: Data(last.body.utf8)))
        #expect(StateDigest(of: client) == node.logbook.stateDigest())
        #expect(client.getRecord("node/3")?.fields["note"] == .null, "a null value stays a value")
        #expect(node.logbook.getRecord("shared")?.fields["gone"] == .null)
    }

    /// A node restored from a backup taken before the client's last pull: its new writes
    /// take versions the client has already pulled past. Whole or paged, the client's next
    /// pull is answered from 0 and names the reset; a pull within the clock is not reset.
    @Test(arguments: [nil, 1] as [Int?])
    func aClientAheadOfARestoredNodeIsSentEverything(limit: Int?) async throws {
        let backup = TemporaryDirectory()
        defer { backup.remove() }
        let node = try TestNode(node: 1)
        try await node.logbook.insertOrUpdate("early", fields: [("n", 1)])
        node.stop(keepingDirectory: true)
        try FileManager.default.removeItem(atPath: backup.path)
        try FileManager.default.copyItem(atPath: node.directory.path, toPath: backup.path)
        let live = try TestNode(node: 1, at: node.directory)
        try await live.start()
        for number in 0..<6 {
            try await live.logbook.insertOrUpdate("later/\(number)", fields: [("n", 2)])
        }
        let client = CRDT<String, String, Value>(nodeId: 9)
        let first = try await live.send("/changes?since=0")
        #expect(first.headers.first(name: ShippingHeaders.sinceReset) == nil)
        _ = client.mergeChanges(
            try JSONDecoder().decode(
                [Change<String, String, Value>].self, from: Data(first.body.utf8)))
        let pulledSince = try #require(
            first.headers.first(name: ShippingHeaders.clock).flatMap(UInt64.init))
        live.stop()

        let restored = try TestNode(node: 1, at: backup)
        defer { restored.stop() }
        try await restored.start()
        try await restored.logbook.insertOrUpdate("after-restore", fields: [("n", 3)])
        #expect(restored.logbook.clock().currentTime() < pulledSince, "the restore went back")
        var since = pulledSince
        var pages = 0
        while true {
            let page = try await restored.send(
                "/changes?since=\(since)" + (limit.map { "&limit=\($0)" } ?? ""))
            #expect(page.status == 200)
            #expect(
                page.headers.first(name: ShippingHeaders.sinceReset)
                    == (pages == 0 ? String(pulledSince) : nil))
            _ = client.mergeChanges(
                try JSONDecoder().decode(
                    [Change<String, String, Value>].self, from: Data(page.body.utf8)))
            pages += 1
            guard let next = page.headers.first(name: ShippingHeaders.nextSince) else { break }
            since = try #require(UInt64(next))
            try #require(pages < 100, "paging does not end")
        }
        #expect(limit == nil || pages > 1, "the paged answer took several pages")
        #expect(client.getRecord("after-restore")?.fields["n"] == 3)
        #expect(client.getRecord("early")?.fields["n"] == 1)
    }
}
