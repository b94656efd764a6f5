import Logbook
import LogbookStorage
import LogbookTesting
import Testing

// The log's settings reach `Log` through `LogbookOptions.log`; the engine's open refuses
// one out of range by name before it touches the directory, as `Log.open` does.
@Suite struct LogOptionsRefusedTests {
    @Test(arguments: [-1, Int(Limits.segmentSizeMax) + 1])
    func anOutOfRangeWritebackSettingIsRefusedByName(_ bytes: Int) throws {
        let fileSystem = SimulatedFileSystem()
        var options = LogbookOptions()
        options.fileSystem = fileSystem
        options.log.writebackAfterBytes = bytes
        let error = #expect(throws: LogbookError.self) {
            try Logbook.open(directory: "/data", nodeId: 1, options: options)
        }
        #expect(error?.description.contains("writebackAfterBytes \(bytes)") == true)
        #expect(!fileSystem.exists("/data"))
    }
}
