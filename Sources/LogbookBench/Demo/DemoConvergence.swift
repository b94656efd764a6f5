import LogbookCRDT

/// Part 1 of the demo: two in-memory replicas write overlapping fields of the same device
/// records, one deletes a field, the other a whole record; each merges the other's changes,
/// and column-level last-writer-wins decides every conflict the same way on both sides.
struct DemoConvergence {
    let narrate: (String) -> Void

    func run() throws {
        let kitchen = CRDT<String, String, Value>(nodeId: 1)
        let office = CRDT<String, String, Value>(nodeId: 2)

        narrate("== Two replicas write independently")
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
        narrateState("replica 1", kitchen)
        narrateState("replica 2", office)

        narrate(
            "\n== They exchange changes (\(fromKitchen.count) one way, \(fromOffice.count) the other)"
        )
        let acceptedByOffice = office.mergeChanges(fromKitchen)
        let acceptedByKitchen = kitchen.mergeChanges(fromOffice)
        narrate("replica 2 accepted \(acceptedByOffice.count) of \(fromKitchen.count)")
        narrate("replica 1 accepted \(acceptedByKitchen.count) of \(fromOffice.count)")
        narrateState("replica 1", kitchen)
        narrateState("replica 2", office)

        let converged =
            kitchen.getData() == office.getData()
            && Set(kitchen.getTombstones().keys) == Set(office.getTombstones().keys)
        narrate("\nconverged: \(converged ? "yes" : "NO")")
        if !converged { throw DemoError.diverged("the two replicas") }
    }

    private func narrateState(_ label: String, _ replica: CRDT<String, String, Value>) {
        narrate("\(label) (clock \(replica.getClock().currentTime())):")
        for (recordId, record) in replica.getData().sorted(by: { $0.key < $1.key }) {
            let fields = record.fields.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(describe($0.value))" }
                .joined(separator: " ")
            narrate("  \(recordId)  \(fields)")
        }
        for recordId in replica.getTombstones().keys.sorted() {
            narrate("  \(recordId)  (deleted)")
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
