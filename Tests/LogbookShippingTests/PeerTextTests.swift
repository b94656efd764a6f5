import Foundation
import Hummingbird
import Logbook
import LogbookShipping
import LogbookTesting
import Testing

// A peer's error answer reaches errors, log lines and peers.json with its controls escaped:
// a hostile peer cannot forge a log line with a newline or drive the operator's terminal.
@Suite struct PeerTextTests {
    @Test func aPeersErrorAnswerIsQuotedWithoutItsControls() async throws {
        let forged = "busy\n2026-11-29T00:00:00+0000 info converged\u{1B}[2J\u{1B}]0;owned\u{07}"
        let router = Router()
        router.get("log") { _, _ in
            Response(
                status: .internalServerError,
                body: .init(
                    byteBuffer: ByteBuffer(string: forged + String(repeating: "x", count: 1000))))
        }
        let (port, task) = await serve(router)
        defer { task.cancel() }
        let follower = try TestNode(node: 2)
        defer { follower.stop() }
        var puller = follower.puller(fromPort: port)
        puller.options.bootstrapsFromState = false  // the peer serves /log only
        do {
            _ = try await puller.catchUp()
            Issue.record("a 500 was taken for an answer")
        } catch {
            let message = "\(error)"
            #expect(message.contains(#"busy\u{A}2026-11-29"#), "\(message)")
            #expect(message.contains(#"\u{1B}[2J"#), "\(message)")
            #expect(
                !message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                "\(message)")
            #expect(message.count < 500, "the answer is cut, \(message.count) characters")
        }
        try await follower.logbook.insertOrUpdate("e/still", fields: [("n", 1)])
    }
}
