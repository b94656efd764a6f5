import ArgumentParser
import Logbook
import LogbookStorage

/// `logbook init DIR --node N`: creates an empty Logbook owned by node N.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a Logbook directory for a node.",
        discussion:
            "Writes logbook.json (the node id and, with --segment-size, the segment size) and an empty first segment. Fails if the directory already belongs to another node."
    )

    @OptionGroup var target: DirectoryArgument
    @Option(
        name: .long, help: "This replica's node id (a positive 64-bit integer, unique among peers)."
    )
    var node: UInt64
    @Option(
        help: """
            Roll segments at this size: bytes, or K, M, G (binary); 4K to 2G, default 64M. \
            Recorded in logbook.json: every later open of the directory uses it.
            """)
    var segmentSize: String?

    func validate() throws {
        guard node > 0 else { throw ValidationError("--node must be positive") }
        if let segmentSize { _ = try Self.bytes(segmentSize) }
    }

    private static func bytes(_ text: String) throws -> Int64 {
        do { return try SegmentSize.bytes(text) } catch {
            throw ValidationError("--segment-size: \(error.message)")
        }
    }

    func run() throws {
        do {
            var options = LogbookOptions()
            if let segmentSize {
                options.log.segmentSizeMax = try Self.bytes(segmentSize)
                options.recordsSegmentSize = true
            }
            let logbook = try Logbook.open(
                directory: target.directory, nodeId: node, options: options)
            try logbook.close()
            let size = segmentSize == nil ? "" : ", segments of \(options.log.segmentSizeMax) bytes"
            print("initialized \(target.directory) for node \(node)\(size)")
        } catch {
            throw exitWithError(error)
        }
    }
}
