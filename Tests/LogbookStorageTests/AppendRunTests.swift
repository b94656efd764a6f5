import Testing

@testable import LogbookStorage

// A run of appends stops where the log has work to do, and hands back the record it stopped
// before with its description, so the caller never describes a record twice.
@Suite struct AppendRunTests {
    private func run(
        _ appending: inout AppendRun, sizes: [Int], from index: Int = 0,
        carried: (byteCount: Int, version: UInt64)? = nil, epochBegun: Bool = true,
        target: Int = Limits.batchRawSizeMax, described: inout [Int]
    ) -> AppendRun.Stop {
        appending.append(
            from: index, to: sizes.count, carried: carried, epochBegun: epochBegun,
            batchSizeTarget: target,
            describedBy: { index in
                described[index] += 1
                return (sizes[index], UInt64(index))
            },
            writtenBy: { index, pointer in
                pointer.initializeMemory(as: UInt8.self, repeating: 1, count: sizes[index])
                return sizes[index]
            })
    }

    @Test func stopsBeforeARecordTheBatchCannotTakeAndCarriesItsDescription() {
        var appending = AppendRun(nextOffset: 10)
        // 9 MiB then 8 MiB: together past `Limits.batchRawSizeMax`.
        let sizes = [9 << 20, 8 << 20, 5]
        var described = [0, 0, 0]
        let stop = run(&appending, sizes: sizes, described: &described)
        guard case .before(let index, let description) = stop else {
            Issue.record("stopped with \(stop)")
            return
        }
        #expect(index == 1 && description.byteCount == 8 << 20 && description.version == 1)
        #expect(appending.nextOffset == 11 && appending.pending.recordCount == 1)
        // The log writes the batch; the run goes on with the carried description.
        appending.pending.reset()
        let rest = run(
            &appending, sizes: sizes, from: index, carried: description, described: &described)
        guard case .finished = rest else {
            Issue.record("stopped with \(rest)")
            return
        }
        #expect(described == [1, 1, 1], "described twice or never")
        #expect(appending.nextOffset == 13 && appending.pending.recordCount == 2)
    }

    @Test func stopsBeforeTheFirstRecordUntilTheEpochBegins() {
        var appending = AppendRun(nextOffset: 0)
        var described = [0]
        let stop = run(&appending, sizes: [3], epochBegun: false, described: &described)
        guard case .before(0, let description) = stop else {
            Issue.record("stopped with \(stop)")
            return
        }
        #expect(description.byteCount == 3 && appending.pending.isEmpty)
        #expect(appending.nextOffset == 0)
    }

    @Test func stopsAfterTheRecordThatReachesTheTarget() {
        var appending = AppendRun(nextOffset: 0)
        var described = [0, 0, 0, 0]
        let stop = run(&appending, sizes: [40, 40, 40, 40], target: 100, described: &described)
        guard case .batchReachedTarget(let next) = stop else {
            Issue.record("stopped with \(stop)")
            return
        }
        #expect(next == 3 && appending.nextOffset == 3)
        #expect(described == [1, 1, 1, 0])
    }

    @Test func anOversizedRecordStopsTheRunBeforeAnythingOfIt() {
        var appending = AppendRun(nextOffset: 4)
        var described = [0, 0]
        let stop = run(
            &appending, sizes: [2, Limits.recordSizeMax + 1], described: &described)
        guard case .oversized(1, let byteCount) = stop else {
            Issue.record("stopped with \(stop)")
            return
        }
        #expect(byteCount == Limits.recordSizeMax + 1)
        #expect(appending.nextOffset == 5 && appending.pending.recordCount == 1)
    }
}
