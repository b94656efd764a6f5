import ArgumentParser
import LogbookCRDT

/// `logbook demo`: two replicas edit the same records concurrently, exchange their changes
/// and end in the same state; the output shows each step and the conflicts' winners.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show two replicas editing concurrently and converging.",
        discussion: """
            Replica 1 and replica 2 write overlapping fields of the same device record, one
            deletes a field, the other a whole record; then each merges the other's changes.
            Column-level last-writer-wins decides every conflict the same way on both sides.
            """
    )

    func run() throws {
        let kitchen = CRDT<String, String, Value>(nodeId: 1)
        let office = CRDT<String, String, Value>(nodeId: 2)

        print("== Two replicas write independently")
        var fromKitchen = kitchen.insertOrUpdate(
            "entity/lamp", fields: [("name", "Lamp"), ("content.brightness", 40)])
        fromKitchen += kitchen.insertOrUpdate("entity/fan", fields: [("name", "Fan")])
        var fromOffice = office.insertOrUpdate(
            "entity/lamp", fields: [("name", "Desk lamp"), ("content.color", "warm")])
        fromOffice += office.insertOrUpdate("entity/fan", fields: [("name", "Ceiling fan")])
        fromKitchen.append(
            contentsOf: [kitchen.deleteField("entity/lamp", fieldName: "content.brightness")]
                .compactMap { $0 })
        fromOffice.append(contentsOf: [office.deleteRecord("entity/fan")].compactMap { $0 })
        printState("replica 1", kitchen)
        printState("replica 2", office)

        print(
            "\n== They exchange changes (\(fromKitchen.count) one way, \(fromOffice.count) the other)"
        )
        let acceptedByOffice = office.mergeChanges(fromKitchen)
        let acceptedByKitchen = kitchen.mergeChanges(fromOffice)
        print("replica 2 accepted \(acceptedByOffice.count) of \(fromKitchen.count)")
        print("replica 1 accepted \(acceptedByKitchen.count) of \(fromOffice.count)")
        printState("replica 1", kitchen)
        printState("replica 2", office)

        let converged =
            kitchen.getData() == office.getData()
            && Set(kitchen.getTombstones().keys) == Set(office.getTombstones().keys)
        print("\nconverged: \(converged ? "yes" : "NO")")
        if !converged { throw ExitCode.failure }
    }

    private func printState(_ label: String, _ replica: CRDT<String, String, Value>) {
        print("\(label) (clock \(replica.getClock().currentTime())):")
        for (recordId, record) in replica.getData().sorted(by: { $0.key < $1.key }) {
            let fields = record.fields.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(describe($0.value))" }
                .joined(separator: " ")
            print("  \(recordId)  \(fields)")
        }
        for recordId in replica.getTombstones().keys.sorted() {
            print("  \(recordId)  (deleted)")
        }
    }

    private func describe(_ value: Value) -> String {
        switch value {
        case .string(let string): return "\"\(string)\""
        case .int(let int): return "\(int)"
        default: return "\(value)"
        }
    }
}
