import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import Testing

// A crdt-lite client against `logbook serve`: it gets the form it asks for (by `format` or
// `Accept`), every answer names its form, and crdt-lite's own sync loop — push what is new
// since the last push, pull since the last `Logbook-Clock` — converges in either form,
// null values included.
@Suite(.serialized) struct CrdtLiteClientTests {
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
}
