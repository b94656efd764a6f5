import Foundation
import Logbook
import LogbookViews

/// `logbook import KIND DIR FILE`: what came in. Bridges give `rows`, `imported` and
/// `skipped` (by reason); a Goodies home gives `entities` and `relationships`.
package struct ImportReport: CommandReport {
    package let command = "import"
    package var directory: String
    /// bridges or goodies.
    package var kind: String
    package var file: String
    package var rows: Int?
    package var imported: Int?
    package var skipped: [String: Int]?
    package var entities: Int?
    package var relationships: Int?

    package init(directory: String, kind: String, file: String) {
        self.directory = directory
        self.kind = kind
        self.file = file
    }

    /// Fills in a bridges import: rows read, openings imported, rows skipped by reason.
    package mutating func bridges(
        rows: Int, imported: Int, skipped: [BridgeOpening.SkipReason: Int]
    ) {
        self.rows = rows
        self.imported = imported
        self.skipped = Dictionary(uniqueKeysWithValues: skipped.map { ($0.key.rawValue, $0.value) })
    }

    /// Fills in a Goodies import: the document's counts, and the records not written
    /// because they were deleted.
    package mutating func goodies(_ document: GoodiesDocument, deleted: Int) {
        entities = document.entities.count
        relationships = document.relationships.count
        skipped = deleted == 0 ? nil : ["the record was deleted": deleted]
    }

    package var text: String {
        var lines = ["imported \(imported ?? 0) of \(rows ?? 0) rows from \(file)"]
        if let entities, let relationships {
            lines = [
                "imported \(entities) entities and \(relationships) relationships from \(file)"
            ]
        }
        for (reason, count) in (skipped ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("  skipped \(count): \(reason)")
        }
        return lines.joined(separator: "\n")
    }
}

/// `logbook append DIR FILE`: changes read and accepted; with `error` when a line stopped
/// the command (the exit status is then 2).
package struct AppendReport: CommandReport {
    package let command = "append"
    package var directory: String
    /// The file, or `-` for standard input.
    package var file: String
    package var read: Int
    package var accepted: Int
    /// Changes the CRDT did not take (already held, or older than what is held).
    package var rejected: Int
    /// The line that stopped the command and why; everything before it is merged and durable.
    package var error: String?

    package init(directory: String, file: String, read: Int, accepted: Int, error: String?) {
        self.directory = directory
        self.file = file
        self.read = read
        self.accepted = accepted
        rejected = read - accepted
        self.error = error
    }

    package var text: String { "read \(read) changes, accepted \(accepted), rejected \(rejected)" }
}

/// `logbook sync DIR`: one round with a peer (`from`, `pulled`) or a hub (`hub`, `stream`,
/// `pushed`, `pulled`, and `collection` with --gc), and the state digest after it.
package struct SyncReport: CommandReport {
    package let command = "sync"
    package var directory: String
    package var from: String?
    package var hub: String?
    package var stream: String?
    package var pushed: PushReport?
    package var pulled: ReplicationReport
    package var collection: TombstoneCollectionReport?
    package var digest: String

    package init(directory: String, from: String, pulled: ReplicationReport, digest: String) {
        self.directory = directory
        self.from = from
        self.pulled = pulled
        self.digest = digest
    }

    package init(
        directory: String, hub: String, stream: String, pushed: PushReport,
        pulled: ReplicationReport, collection: TombstoneCollectionReport?, digest: String
    ) {
        self.directory = directory
        self.hub = hub
        self.stream = stream
        self.pushed = pushed
        self.pulled = pulled
        self.collection = collection
        self.digest = digest
    }

    package var text: String {
        var lines: [String] = []
        if let pushed {
            lines.append(
                "pushed \(pushed.sent) changes in \(pushed.pushes) bodies; the hub took \(pushed.accepted); \(pushed.echoesSkipped) pulled from it left out"
            )
        }
        lines.append(
            "pulled \(pulled.pulls) bodies, \(formatBytes(Int64(pulled.bytes))), \(pulled.received) changes from \(from ?? hub ?? ""); accepted \(pulled.accepted); cursor \(pulled.cursor) of \(pulled.peerDurableOffset)"
        )
        if let reasons = pulled.stateTransferReasons {
            lines.append("took the peer's state: " + reasons)
        }
        if let reason = pushed?.restartReason {
            lines.append(
                "push restarted; the state was pushed instead: " + terminalSafe(reason))
        }
        if let reason = pulled.restartReason {
            lines.append(
                "pull cursor's merges not held by this log; pulled from the start: "
                    + terminalSafe(reason))
        }
        if let collection {
            lines.append(
                "gc: collected \(collection.collected) tombstones, unfenced \(collection.unfenced)"
                    + (collection.blockedBecause.map { "; blocked: \($0)" } ?? ""))
        }
        lines.append("digest: \(digest)")
        return lines.joined(separator: "\n")
    }
}
