import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import Testing

// Every JSON value a crdt-lite client can send comes back exactly — kind, sign and bits — from
// every way into a node (the Swift API, `POST /changes` in either form) and every way out
// (`GET /changes` in either form, the state it holds, a peer's pull of its log, a reopen),
// and every replica that merges it ends with the same digest. The values are seeded and sit
// at the boundaries (`BoundaryValueGenerator`); they are compared to the bit, since `Value`'s
// `==` takes -0.0 for 0.0.
@Suite(.serialized) struct ValueFidelityTests {
    typealias PlainChange = Change<String, String, Value>

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyValueComesBackExactlyFromEveryEntryPointAndExit(seed: UInt64) async throws {
        var generator = BoundaryValueGenerator(seed: seed)
        let values = generator.values(randomCount: 150)
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        let client = CRDT<String, String, Value>(nodeId: 9)
        var expected: [String: Value] = [:]
        for (index, value) in values.enumerated() {
            try await node.logbook.insertOrUpdate("api/\(index)", fields: [("v", value)])
            expected["api/\(index)"] = value
            for format in ChangeJSONFormat.allCases {
                _ = client.insertOrUpdate("\(format.rawValue)/\(index)", fields: [("v", value)])
                expected["\(format.rawValue)/\(index)"] = value
            }
        }
        for format in ChangeJSONFormat.allCases {
            let mine = client.getChangesSince(0).filter {
                $0.recordId.hasPrefix("\(format.rawValue)/")
            }
            let body = try ChangeJSON.encodeArray(mine, format: format)
            let pushed = try await node.send(
                "/changes?format=\(format.rawValue)", method: .POST,
                body: String(decoding: body, as: UTF8.self))
            #expect(pushed.status == 200, "\(pushed.body)")
        }
        for (id, value) in expected {
            let held = node.logbook.getRecord(id)?.fields["v"]
            #expect(ValueFidelity.isExactlyEqual(held, value), "seed \(seed) \(id): \(value)")
        }
        for format in ChangeJSONFormat.allCases {
            let pulled = try await node.send("/changes?since=0&format=\(format.rawValue)")
            #expect(pulled.status == 200)
            let changes = try ChangeJSON.decodeArray(Data(pulled.body.utf8), as: PlainChange.self)
            let mismatches = ValueFidelity.mismatches(changes, expected: expected)
            #expect(mismatches.isEmpty, "seed \(seed) \(format): \(mismatches.prefix(5))")
            let replica = CRDT<String, String, Value>(nodeId: 7)
            _ = replica.mergeChanges(changes)
            #expect(StateDigest(of: replica) == node.logbook.stateDigest(), "\(format)")
        }
        let peer = try TestNode(node: 2)
        defer { peer.stop() }
        try TestNode.register([node, peer])
        var puller = peer.puller(from: node)
        puller.options.bootstrapsFromState = false  // the log's batches, not the state
        _ = try await puller.catchUp()
        #expect(peer.logbook.stateDigest() == node.logbook.stateDigest())
        node.stop(keepingDirectory: true)
        let reopened = try Logbook.open(directory: node.directory.path, nodeId: 1)
        defer { try? reopened.close() }
        #expect(reopened.stateDigest() == peer.logbook.stateDigest())
        for (id, value) in expected {
            #expect(ValueFidelity.isExactlyEqual(reopened.getRecord(id)?.fields["v"], value))
        }
    }

    /// The numbers of the issue, spelled as a crdt-lite Rust client (serde_json) writes
    /// them, come back in a spelling serde reads as the same number of the same kind.
    @Test func serdeSpellingsComeBackAsTheSameKind() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        let cases: [(sent: String, answered: String)] = [
            ("1.0", "1.0"), ("1e2", "100.0"), ("-0.0", "-0.0"), ("22.0", "22.0"),
            ("18446744073709551615", "18446744073709551615"),
            ("9223372036854775808", "9223372036854775808"), ("9.3e18", "9.3e+18"),
            ("1e20", "1e+20"), ("-9223372036854775808", "-9223372036854775808"),
        ]
        var lines: [String] = []
        for (index, number) in cases.enumerated() {
            lines.append(
                #"{"record_id":"n/\#(index)","col_name":"v","value":\#(number.sent),"#
                    + #""col_version":1,"db_version":\#(index + 1),"node_id":9,"#
                    + #""local_db_version":\#(index + 1)}"#)
        }
        let pushed = try await node.send(
            "/changes", method: .POST, body: lines.joined(separator: "\n"))
        #expect(pushed.status == 200, "\(pushed.body)")
        let pulled = try await node.send("/changes?since=0")
        for (index, number) in cases.enumerated() {
            #expect(
                pulled.body.contains(#""record_id":"n/\#(index)","value":\#(number.answered)}"#),
                "\(number.sent): \(pulled.body)")
        }
        #expect(
            try await node.send("/changes?format=xml", method: .POST, body: lines[0]).status
                == 400)
    }
}
