import ArgumentParser
import Foundation
import Logbook
import LogbookShipping

/// `logbook sync DIR --from URL --token T`: one catch-up from a peer, then exit.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull everything a peer has (durably) into this Logbook, then exit.",
        discussion: """
            Starts from the cursor saved for that peer in peers.json (0 the first time), \\
            checks every batch before merging it, saves the cursor after each merge and \\
            acknowledges it to the peer. Running it again pulls only what is new.
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "The peer's URL, e.g. http://127.0.0.1:7000.")
    var from: String
    @Option(help: "The peer's bearer token.")
    var token: String

    func run() async throws {
        let logbook = try openLogbook(target.directory, durability: .groupCommit)
        defer { try? logbook.close() }
        do {
            let ledger = try PeerLedger(directory: target.directory)
            let report = try await PeerPuller(
                logbook: logbook, peer: from, token: token, ledger: ledger
            ).catchUp()
            print(
                "pulled \(report.pulls) bodies, \(formatBytes(Int64(report.bytes))), \(report.received) changes from \(from); accepted \(report.accepted); cursor \(report.cursor) of \(report.peerDurableOffset)"
            )
            print("digest: \(logbook.stateDigest())")
        } catch let error as LogbookError {
            throw exitWithError(error)
        } catch {
            var standardError = StandardError()
            print("error: \(error)", to: &standardError)
            throw ExitCode.failure
        }
    }
}
