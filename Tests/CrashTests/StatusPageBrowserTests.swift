import Foundation
import LogbookTesting
import Testing

// The status page in a real browser, as an operator opens it: headless Chromium (Debian's
// `chromium`) loads the admin listener of a served node with no token, and the page's DOM
// holds the lag chart with a line for the peer that follows it; a screenshot renders. CI
// installs Chromium and fails without it; elsewhere the test says it skipped.
@Suite struct StatusPageBrowserTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs headless Chromium (as root it needs --no-sandbox) with `arguments`; its output.
    private func browse(_ chromium: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments =
            ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let data = try await onOwnThread { [process, output] in
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func serve(_ logbook: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = logbook
        process.arguments = ["serve"] + arguments + ["--log-level", "warning"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Whether `process` answers `url` with any HTTP status: false once it exits (its port
    /// taken, a bad argument) or after 120 s, since the whole suite on two cores can delay a
    /// process's start by many seconds.
    private func answers(_ url: String, _ process: Process) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline {
            if (try? await HubCommandTests.request(url, token: nil)) != nil { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func chromiumShowsTheLagChartWithoutAToken() async throws {
        guard let logbook = LogbookExecutable.built() else { return }
        guard let chromium = Self.chromium else {
            let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
            #expect(
                !inCI, "CI needs Debian's chromium for the status page test (.ci/run installs it)")
            print("StatusPageBrowserTests: skipped, no chromium (apt-get install chromium)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-page-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (leader, follower) = (directory + "/a", directory + "/b")
        for (node, id, peer) in [(leader, "1", "2"), (follower, "2", "1")] {
            #expect(try await LogbookExecutable.run(["init", node, "--node", id]).status == 0)
            #expect(try await LogbookExecutable.run(["peers", node, "add", peer]).status == 0)
        }
        let tokenFile = directory + "/token"
        try "page-secret\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let port = LocalPorts.consecutive(3)
        let (data, admin) = ("http://127.0.0.1:\(port)", "http://127.0.0.1:\(port + 1)")
        let serving = try serve(
            logbook,
            [leader, "--port", "\(port)", "--admin-port", "\(port + 1)", "--token-file", tokenFile])
        defer { serving.terminate() }
        try #require(
            await answers(data + "/", serving), "the leader did not come up on port \(port)")
        let following = try serve(
            logbook, [follower, "--port", "\(port + 2)", "--token-file", tokenFile, "--peer", data])
        defer { following.terminate() }
        try #require(
            await answers("http://127.0.0.1:\(port + 2)/", following),
            "the follower did not come up on port \(port + 2)")
        // Writes on the leader until a lag sample (every 5 s) has the follower in it.
        var page = ""
        let deadline = ContinuousClock.now + .seconds(120)
        for index in 0... where ContinuousClock.now < deadline {
            if page.contains(#"data-peer="node-2""#) { break }
            let change =
                #"{"record_id":"lamp/\#(index)","col_name":"on","value":true,"col_version":1,"#
                + #""db_version":\#(index + 1),"node_id":9,"local_db_version":\#(index + 1)}"#
            _ = try? await HubCommandTests.request(
                data + "/changes", method: "POST", body: Data(change.utf8), token: "page-secret")
            try await Task.sleep(for: .milliseconds(200))
            page = (try? await HubCommandTests.request(admin + "/", token: nil).body) ?? ""
        }
        #expect(try await HubCommandTests.request(data + "/", token: nil).status == 401)

        let dom = try await browse(chromium, ["--dump-dom", admin + "/"])
        #expect(dom.contains("<title>Logbook node 1</title>"), "\(dom.prefix(400))")
        #expect(dom.contains(#"<svg class="lag-chart""#))
        #expect(dom.contains(#"<polyline class="lag" data-peer="node-2""#))
        let screenshot = directory + "/status.png"
        _ = try await browse(
            chromium, ["--screenshot=\(screenshot)", "--window-size=900,1000", admin + "/"])
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(
            png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(png.count) bytes")
    }
}
