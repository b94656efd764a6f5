import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookStorage

/// `logbook peers DIR add|remove|list`.
struct PeersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Manage the peers whose acknowledgements gate tombstone GC.",
        discussion: """
            Register every node of the cluster on every node, before it syncs: GC waits \
            until each registered peer has acknowledged a tombstone, and a node that syncs \
            without being registered blocks GC. A removed peer no longer gates GC; it must \
            not sync again with its old state (give it a fresh directory). Node ids are shown \
            by `logbook inspect` and on each node's status page. Change peers while the node \
            is stopped (a serving node holds the directory).
            """,
    )

    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case add, remove, list
    }

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "add, remove or list.")
    var action: Action
    @Argument(help: "The peer's node id (for add and remove).")
    var nodeId: UInt64?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if action != .list && nodeId == nil {
            throw ValidationError("\(action.rawValue) needs the peer's node id")
        }
        if action == .list && nodeId != nil { throw ValidationError("list takes no node id") }
    }

    func run() throws {
        try requireLogbookDirectory(target.directory)
        // Changes lock out a serving node; a list reads whole renamed files and takes no lock.
        let lease: (any DirectoryLease)?
        do {
            lease =
                action == .list
                ? nil : try PosixFileSystem().lockDirectory(target.directory, exclusive: true)
        } catch {
            throw exitWithError(LogbookError(error))
        }
        defer { lease?.release() }
        let ledger = try openLedger(target.directory)
        do {
            let directory = target.directory
            switch (action, nodeId) {
            case (.add, let node?):
                try ledger.register(node)
                try output.print(PeersReport(directory: directory, action: "add", nodeId: node))
            case (.remove, let node?):
                try ledger.unregister(node)
                try output.print(PeersReport(directory: directory, action: "remove", nodeId: node))
            default:
                try output.print(PeersReport(directory: directory, listing: ledger))
            }
        } catch {
            throw exitWithError(error)
        }
    }
}

/// The ledger of an existing Logbook directory.
private func openLedger(_ directory: String) throws -> PeerLedger {
    do { return try PeerLedger(directory: directory) } catch { throw exitWithError(error) }
}

/// Exits 4 unless `directory` holds a Logbook.
private func requireLogbookDirectory(_ directory: String) throws {
    guard FileManager.default.fileExists(atPath: directory + "/logbook.json") else {
        throw exitWithError(
            LogbookError(.nodeMismatch, "not a Logbook directory", path: directory))
    }
}
