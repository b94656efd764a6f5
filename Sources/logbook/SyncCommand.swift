import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookShipping

/// `logbook sync DIR --from URL --token-file F`: one catch-up from a peer, then exit.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull everything a peer has (durably) into this Logbook, then exit.",
        discussion: """
            Starts from the cursor saved for that peer in peers.json (0 the first time), \
            checks every batch before merging it, saves the cursor after each merge and \
            acknowledges it to the peer. Running it again pulls only what is new.
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "The peer's URL, e.g. http://127.0.0.1:7000.")
    var from: String
    /// The peer's bearer token.
    @OptionGroup var tokenOptions: TokenOptions
    @Option(help: "Trust an HTTPS peer whose certificate this PEM file holds (or signed).")
    var ca: String?

    func validate() throws { _ = try tokenOptions.resolve() }

    func run() async throws {
        let token = try tokenOptions.resolve()
        let logbook = try openLogbook(target.directory, durability: .groupCommit)
        defer { try? logbook.close() }
        do {
            let ledger = try PeerLedger(directory: target.directory)
            let client = try PeerClient.make(trusting: ca)
            let report: PeerPuller.Report
            do {
                report = try await PeerPuller(
                    logbook: logbook, peer: from, token: token, ledger: ledger, client: client
                ).catchUp()
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
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
