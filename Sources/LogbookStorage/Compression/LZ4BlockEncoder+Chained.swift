extension LZ4BlockEncoder {
    static let chainHashLog = 15

    /// The chained search; returns where the trailing literals start. Every position goes
    /// into its hash's chain (the distance back to the previous position with that hash,
    /// kept for the last 64 KiB); each match is the longest among up to `depth` of them.
    static func chained(
        _ input: UnsafeRawPointer, count: Int, depth: Int, into writer: inout LZ4SequenceWriter
    ) -> Int {
        let matchStartLimit = count - 12
        let matchEndLimit = count - 5
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1 << chainHashLog) {
            heads in
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 1 << 16) { chain in
                heads.initialize(repeating: -1)
                chain.initialize(repeating: 0)
                var inserted = 0
                func insert(upTo end: Int) {
                    while inserted < end {
                        let slot = hash(word(input, inserted), log: chainHashLog)
                        let previous = Int(heads[slot])
                        let distance = previous < 0 ? 0 : inserted - previous
                        chain[inserted & 0xFFFF] = UInt16(distance > windowSize ? 0 : distance)
                        heads[slot] = Int32(truncatingIfNeeded: inserted)
                        inserted += 1
                    }
                }
                var anchor = 0
                var position = 0
                while position < matchStartLimit {
                    insert(upTo: position)
                    var best = (length: 0, candidate: 0)
                    var candidate = Int(heads[hash(word(input, position), log: chainHashLog)])
                    var attempts = depth
                    while candidate >= 0, position - candidate <= windowSize, attempts > 0 {
                        attempts -= 1
                        if word(input, candidate) == word(input, position) {
                            let length =
                                matchEnd(
                                    input, from: position + 4, candidate: candidate + 4,
                                    limit: matchEndLimit) - position
                            if length > best.length { best = (length, candidate) }
                        }
                        let step = Int(chain[candidate & 0xFFFF])
                        guard step > 0 else { break }
                        candidate -= step
                    }
                    guard best.length >= 4 else {
                        position += 1
                        continue
                    }
                    writer.write(
                        literalsFrom: input, anchor, position, offset: position - best.candidate,
                        matchLength: best.length)
                    guard writer.fits else { return count }
                    position += best.length
                    anchor = position
                }
                return anchor
            }
        }
    }
}
