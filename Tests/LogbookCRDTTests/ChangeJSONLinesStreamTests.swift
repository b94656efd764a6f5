import Foundation
import LogbookCRDT
import Testing

// Reading JSON lines a block at a time gives what reading the whole input gives, change for
// change and line for line, wherever the blocks cut the lines; a line longer than the bound
// is refused with its number once the bound is read, never read whole.
@Suite struct ChangeJSONLinesStreamTests {
    private func line(_ index: Int, value: String = "X") -> String {
        #"{"recordId":"e/\#(index)","colName":"n","value":"\#(value)","colVersion":1,"#
            + #""dbVersion":\#(index + 1),"nodeId":9,"localDbVersion":1,"flags":0}"#
    }

    /// A stream over `text` handing out at most `blockBytes` per read, counting the bytes read.
    private func stream(_ text: String, lineBytesMax: Int = 1 << 20, blockBytes: Int) -> (
        ChangeJSONLinesStream, ReadCounter
    ) {
        let bytes = Data(text.utf8)
        let counter = ReadCounter()
        let stream = ChangeJSONLinesStream(lineBytesMax: lineBytesMax, blockBytes: blockBytes) {
            count in
            let start = counter.bytesRead
            let end = min(bytes.count, start + count)
            counter.bytesRead = end
            return bytes.subdata(in: start..<end)
        }
        return (stream, counter)
    }

    final class ReadCounter { var bytesRead = 0 }

    @Test(arguments: [1, 7, 100, 1 << 16])
    func blocksCutAnywhereGiveTheWholeInputsChanges(blockBytes: Int) throws {
        let text =
            (0..<40).map { line($0) }.joined(separator: "\n") + "\r\n\n  \n" + line(40)
        var whole = ChangeJSONLinesReader<String, String, Value>(Data(text.utf8))
        var expected: [(Change<String, String, Value>, Int)] = []
        while let change = try whole.next() { expected.append((change, whole.lineNumber)) }
        var (reader, _) = stream(text, blockBytes: blockBytes)
        var read: [(Change<String, String, Value>, Int)] = []
        while let change = try reader.next() { read.append((change, reader.lineNumber)) }
        #expect(read.map(\.0) == expected.map(\.0))
        #expect(read.map(\.1) == expected.map(\.1))
        #expect(read.last?.1 == 43)
    }

    @Test func aMalformedLineIsNamedByItsNumberInTheWholeInput() throws {
        let text = (0..<10).map { line($0) }.joined(separator: "\n") + "\n{not json\n" + line(11)
        var (reader, _) = stream(text, blockBytes: 50)
        var read = 0
        do {
            while try reader.next() != nil { read += 1 }
            Issue.record("the malformed line was read")
        } catch let error as ChangeJSONError {
            #expect(error.line == 11, "\(error)")
        }
        #expect(read == 10)
    }

    @Test func aLineOverTheBoundIsRefusedOnceTheBoundIsRead() throws {
        let long = line(1, value: String(repeating: "v", count: 10_000))
        let text = line(0) + "\n" + long + "\n" + line(2) + "\n"
        var (reader, counter) = stream(text, lineBytesMax: 4_096, blockBytes: 1_000)
        #expect(try reader.next()?.recordId == "e/0")
        do {
            _ = try reader.next()
            Issue.record("the long line was read")
        } catch let error as ChangeJSONError {
            #expect(error.line == 2, "\(error)")
            #expect(error.message.contains("longer than 4096 bytes"), "\(error)")
        }
        #expect(counter.bytesRead < 4_096 + 2_000, "read \(counter.bytesRead) bytes of the line")
    }
}
