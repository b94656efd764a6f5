import Logbook
import LogbookCRDT

// The fixture builds against the embedded products only; the test resolves it, and CI's
// build of it proves the products compile without the server side.
let logbook = try Logbook.open(directory: CommandLine.arguments.dropFirst().first ?? "notes", nodeId: 1)
try await logbook.insertOrUpdate("note/1", fields: [("text", "Buy milk")])
print(logbook.getRecord("note/1")?.fields["text"]?.stringValue ?? "missing")
try logbook.close()
