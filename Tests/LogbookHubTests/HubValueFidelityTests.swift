import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import Testing

@testable import LogbookHub

// A hub stream keeps every value exactly: seeded boundary values (`BoundaryValueGenerator`)
// posted in either form come back from `GET /changes` in either form to the bit, and two
// crdt-lite clients that pull them reach the same digest as the one that wrote them.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubValueFidelityTests {
    typealias PlainChange = Change<String, String, Value>

    @Test func everyValuePostedToAStreamComesBackExactlyInEitherForm() async throws {
        try await HubServerTests.withServer { store, server in
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            var generator = BoundaryValueGenerator(seed: 11)
            let values = generator.values(randomCount: 100)
            let writer = CRDT<String, String, Value>(nodeId: 5)
            var expected: [String: Value] = [:]
            for (index, value) in values.enumerated() {
                _ = writer.insertOrUpdate("v/\(index)", fields: [("v", value)])
                expected["v/\(index)"] = value
            }
            let changes = writer.getChangesSince(0)
            let half = changes.count / 2
            for (format, part) in [
                (ChangeJSONFormat.rust, changes[..<half]), (.swift, changes[half...]),
            ] {
                let posted = try await HubServerTests.send(
                    server, "/streams/\(stream)/changes", method: .POST,
                    body: String(
                        decoding: try ChangeJSON.encodeArray(part, format: format), as: UTF8.self),
                    token: token)
                #expect(posted.status == 200, "\(posted.body)")
            }
            for format in ChangeJSONFormat.allCases {
                let pulled = try await HubServerTests.send(
                    server, "/streams/\(stream)/changes?since=0&format=\(format.rawValue)",
                    token: token)
                #expect(pulled.status == 200, "\(pulled.body)")
                let answer = try ChangeJSON.decodeArray(
                    Data(pulled.body.utf8), as: PlainChange.self)
                let mismatches = ValueFidelity.mismatches(answer, expected: expected)
                #expect(mismatches.isEmpty, "\(format): \(mismatches.prefix(5))")
                let reader = CRDT<String, String, Value>(nodeId: 6)
                _ = reader.mergeChanges(answer)
                #expect(StateDigest(of: reader) == StateDigest(of: writer), "\(format)")
            }
        }
    }
}
