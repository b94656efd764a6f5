import Logbook
import LogbookData

// The fixture builds against the embedded products only; the test resolves it, and CI's
// build of it proves the products compile without the server side.
struct Note: LogbookModel {
    var id: Int
    var text: String
    var pinned: Bool?
}

let logbook = try Logbook.open(directory: CommandLine.arguments.dropFirst().first ?? "notes", nodeId: 1)
try await logbook.save(Note(id: 1, text: "Buy milk"))
print(try logbook.model(Note.self, id: 1)?.text ?? "missing")
try logbook.close()
