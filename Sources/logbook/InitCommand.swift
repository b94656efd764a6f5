import ArgumentParser
import Logbook
import LogbookCRDT

/// `logbook init DIR --node N`: creates an empty Logbook owned by node N.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a Logbook directory for a node.",
        discussion:
            "Writes logbook.json (the node id) and an empty first segment. Fails if the directory already belongs to another node."
    )

    @OptionGroup var target: DirectoryArgument
    @Option(
        name: .long, help: "This replica's node id (a positive 64-bit integer, unique among peers)."
    )
    var node: UInt64

    func validate() throws {
        guard node > 0 else { throw ValidationError("--node must be positive") }
    }

    func run() throws {
        do {
            let logbook = try Logbook.open(directory: target.directory, nodeId: node)
            try logbook.close()
            print("initialized \(target.directory) for node \(node)")
        } catch {
            throw exitWithError(error)
        }
    }
}
