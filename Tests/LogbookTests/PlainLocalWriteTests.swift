import Foundation
import LogbookCRDT
import LogbookStorage
import Testing

@testable import Logbook

// The plain-write shortcut of admission may only say yes where the full checks admit the
// write unchanged; where it says no, the full checks decide (ChangeAdmissionTests).
@Suite struct PlainLocalWriteTests {
    private static let longestPlainString = ChangeLimits.valueSizeMax - 1 - Varint.sizeMax

    static let writes: [(String, [(String, Value)])] = [
        ("record/1", [("name", "lamp"), ("count", 3), ("level", .double(0.5))]),
        ("record/2", [("on", true), ("off", .null)]),
        ("record/3", []),
        ("", [("", "")]),
        (String(repeating: "i", count: ChangeLimits.recordIdSizeMax), [("n", 1)]),
        (String(repeating: "i", count: ChangeLimits.recordIdSizeMax + 1), [("n", 1)]),
        ("e", [(String(repeating: "c", count: ChangeLimits.columnNameSizeMax), 1)]),
        ("e", [(String(repeating: "c", count: ChangeLimits.columnNameSizeMax + 1), 1)]),
        ("e", [("n", .string(String(repeating: "s", count: longestPlainString)))]),
        ("e", [("n", .string(String(repeating: "s", count: ChangeLimits.valueSizeMax)))]),
        ("e", [("n", .double(.nan))]),
        ("e", [("n", .double(.infinity))]),
        ("e", [("n", .array([1]))]),
        ("e", [("n", .bytes([1]))]),
        ("cafe\u{301}", [("n", 1)]),
        ("e", [("cafe\u{301}", 1)]),
        ("café", [("n", 1)]),
    ]

    @Test(arguments: 0..<writes.count)
    func aPlainWriteIsOneTheFullChecksAdmitUnchanged(index: Int) {
        let (recordId, fields) = Self.writes[index]
        guard ChangeAdmission.isPlainLocalWrite(recordId: recordId, fields: fields) else { return }
        do {
            let admitted = try ChangeAdmission.admitLocalWriteChecked(
                recordId: recordId, fields: fields)
            #expect(admitted.recordId.utf8.elementsEqual(recordId.utf8))
            #expect(admitted.fields.map(\.0.utf8.count) == fields.map(\.0.utf8.count))
            #expect(admitted.fields.map(\.1) == fields.map(\.1))
        } catch {
            Issue.record("a plain write was refused: \(error)")
        }
    }

    @Test func onlyShortASCIINamesWithScalarValuesWithinBoundsArePlain() {
        let plain = Self.writes.map {
            ChangeAdmission.isPlainLocalWrite(recordId: $0.0, fields: $0.1)
        }
        #expect(
            plain == [
                true, true, true, true, true, false, true, false, true, false, false, false, false,
                false, false, false, false,
            ])
    }
}
