import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logbook
import LogbookBench
import LogbookShipping

/// `logbook sync DIR --from URL | --hub URL --stream S, --token-file F`: one round, then exit.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull everything a peer has into this Logbook, or push to and pull from a hub.",
        discussion: """
            With --from: pulls from a peer node from the cursor saved for it in peers.json (the \
            first time its state, in pages, not its history, unless --history), checking every \
            body before merging it, saving the cursor and acknowledging it. With --hub and \
            --stream: pushes everything durable here that the hub's stream may lack (never what \
            was pulled from it) and then pulls the stream's changes; both cursors are saved \
            under the stream's URL. Running it again moves only what is new.
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "The peer's URL, e.g. http://127.0.0.1:7000.")
    var from: String?
    @Option(help: "A hub's URL (`logbook hub serve`), e.g. http://127.0.0.1:7400; with --stream.")
    var hub: String?
    @Option(help: "The hub stream to sync with (its token must grant it).")
    var stream: String?
    /// The peer's or the hub's bearer token.
    @OptionGroup var tokenOptions: TokenOptions
    @Option(help: "Trust an HTTPS peer whose certificate this PEM file holds (or signed).")
    var ca: String?
    @Flag(help: "With --hub: then collect the tombstones the hub lists as collectable.")
    var gc = false
    @Flag(help: "With --from, a first pull: take the peer's whole log, not its state.")
    var history = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try tokenOptions.resolve()
        guard (from == nil) != (hub == nil) else {
            throw ValidationError("give --from URL (a peer) or --hub URL --stream S, not both")
        }
        guard (hub == nil) == (stream == nil) else {
            throw ValidationError("--hub and --stream go together")
        }
        if gc && hub == nil { throw ValidationError("--gc goes with --hub") }
        if history && from == nil { throw ValidationError("--history goes with --from") }
    }

    func run() async throws {
        let token = try tokenOptions.resolve()
        let logbook = try openLogbook(target.directory, durability: .groupCommit, progress: true)
        defer { try? logbook.close() }
        do {
            let ledger = try PeerLedger(directory: target.directory)
            let client = try PeerClient.make(trusting: ca)
            let report: SyncReport
            do {
                report = try await sync(logbook, ledger: ledger, token: token, client: client)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
            try output.print(report)
        } catch let error as LogbookError {
            throw exitWithError(error)
        } catch {
            _ = exitWithError(error)  // printed escaped; a peer's failure is status 1
            throw ExitCode.failure
        }
    }

    private func sync(_ logbook: Logbook, ledger: PeerLedger, token: String, client: HTTPClient)
        async throws -> SyncReport
    {
        let directory = target.directory
        // Cursors against the other side's log end, in offsets.
        let bars =
            ProgressBar.isTerminal
            ? (
                push: ProgressBar(label: "push", unit: .items),
                pull: ProgressBar(label: "pull", unit: .items)
            ) : nil
        defer { bars?.push.end(); bars?.pull.end() }
        if let hub, let stream {
            let link = try HubLink(
                logbook: logbook, hub: hub, stream: stream, token: token, ledger: ledger,
                client: client)
            let round = try await link.sync(
                collecting: gc ? TombstoneCollectionOptions() : nil,
                onPush: {
                    bars?.push.update(
                        Int64(clamping: $0.cursor), of: Int64(clamping: $0.durableOffset))
                },
                onPull: {
                    bars?.pull.update(
                        Int64(clamping: $0.cursor), of: Int64(clamping: $0.peerDurableOffset))
                })
            return SyncReport(
                directory: directory, hub: hub, stream: stream, pushed: round.pushed,
                pulled: round.pulled, collection: round.collection,
                digest: "\(logbook.stateDigest())")
        }
        let from = from ?? ""  // validate() asks for --from or --hub
        var puller = PeerPuller(
            logbook: logbook, peer: from, token: token, ledger: ledger, client: client)
        puller.options.bootstrapsFromState = !history
        let pulled = try await puller.catchUp {
            bars?.pull.update(Int64(clamping: $0.cursor), of: Int64(clamping: $0.peerDurableOffset))
        }
        return SyncReport(
            directory: directory, from: from, pulled: pulled, digest: "\(logbook.stateDigest())")
    }
}
