import Foundation
import LogbookTesting
import Testing

@testable import LogbookStorage

#if canImport(CLZ4)
    import CLZ4
#endif

// The project's own LZ4 codec (for Apple platforms, which have no liblz4 an app may ship)
// against liblz4 and the `lz4` command, both ways: blocks and frames it writes are read by
// them, and what they write — every block size, checksums on and off, linked and
// independent blocks, HC — is read by it, byte for byte the same content.
@Suite struct LZ4CodecTests {
    /// Inputs at the format's edges and of the shapes a log holds.
    static let inputs: [(name: String, bytes: [UInt8])] = {
        var random = SeededGenerator(seed: 41)
        let noise = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        var records: [UInt8] = []
        for number in 0..<40_000 {
            records += Array(
                "entity/\(number % 997) name=lamp \(number % 13) room=\(number % 7) on=true;"
                    .utf8)
        }
        var mixed: [UInt8] = []
        while mixed.count < 300_000 {
            let start = Int.random(in: 0..<(noise.count - 600), using: &random)
            mixed += noise[start..<(start + Int.random(in: 4...600, using: &random))]
        }
        return [
            ("empty", []), ("one byte", [7]), ("12 bytes", Array("twelve bytes".utf8)),
            ("13 bytes", Array("thirteen byte".utf8)), ("noise", noise),
            ("zeros", Array(repeating: 0, count: 1 << 20)),
            ("a short period", Array(String(repeating: "abc", count: 30_000).utf8)),
            ("records", records), ("repeats of noise", mixed),
        ]
    }()

    @Test func xxHash32MatchesItsPublishedValues() {
        #expect(XXHash32.hash([]) == 0x02CC_5D05)
        #expect(XXHash32.hash(Array("abc".utf8)) == 0x32D1_53FF)
        // The header checksum byte of the one frame shape segments hold.
        #expect(UInt8(truncatingIfNeeded: XXHash32.hash([0x60, 0x70]) >> 8) == 0x73)
    }

    #if canImport(CLZ4)
        /// Blocks the project's compressor writes (fast, and chained at two depths) are read
        /// by liblz4, and come back exactly.
        @Test(arguments: [nil, 16, 4096] as [Int?])
        func ownBlocksAreReadByLibLZ4(depth: Int?) {
            for (name, input) in Self.inputs {
                let decoded = libLZ4Decode(ownBlock(input, depth: depth), capacity: input.count + 1)
                #expect(decoded?.count == input.count, "\(name)")
                #expect(decoded == input, "\(name)")
            }
        }

        /// Blocks liblz4 writes (its fast mode and HC) are read by the project's decoder.
        @Test(arguments: [nil, 9, 12] as [Int32?])
        func libLZ4BlocksAreReadByTheOwnDecoder(hcLevel: Int32?) {
            for (name, input) in Self.inputs {
                var compressed = Array(
                    repeating: UInt8(0), count: Int(LZ4_compressBound(Int32(input.count))))
                let size = input.withUnsafeBytes { source in
                    compressed.withUnsafeMutableBytes { target in
                        let from = source.baseAddress?.assumingMemoryBound(to: CChar.self)
                        let to = target.baseAddress?.assumingMemoryBound(to: CChar.self)
                        guard let hcLevel else {
                            return LZ4_compress_default(
                                from, to, Int32(source.count), Int32(target.count))
                        }
                        return LZ4_compress_HC(
                            from, to, Int32(source.count), Int32(target.count), hcLevel)
                    }
                }
                #expect(size > 0, "\(name)")
                #expect(
                    ownDecode(Array(compressed.prefix(Int(size))), capacity: input.count) == input,
                    "\(name)")
            }
        }

        /// A mutated block never makes the decoder misbehave; where liblz4 reads it too, both
        /// read the same bytes.
        @Test func mutatedBlocksFailOrAgreeWithLibLZ4() {
            var random = SeededGenerator(seed: 5)
            let input = Self.inputs.first { $0.name == "records" }?.bytes ?? []
            let valid = ownBlock(Array(input.prefix(20_000)), depth: nil)
            var agreed = 0
            for _ in 0..<3_000 {
                var mutated = valid
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    mutated[Int.random(in: 0..<mutated.count, using: &random)] = .random(
                        in: 0...255, using: &random)
                }
                let capacity = 40_000
                let own = ownDecode(mutated, capacity: capacity)
                if let own, let library = libLZ4Decode(mutated, capacity: capacity) {
                    #expect(own == library)
                    agreed += 1
                }
            }
            #expect(agreed > 0, "no mutation was read by both")
        }

        /// liblz4's reading of `block` into at most `capacity` bytes; nil when it refuses it.
        private func libLZ4Decode(_ block: [UInt8], capacity: Int) -> [UInt8]? {
            var output = Array(repeating: UInt8(0), count: capacity)
            let written = block.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    LZ4_decompress_safe(
                        source.baseAddress?.assumingMemoryBound(to: CChar.self),
                        target.baseAddress?.assumingMemoryBound(to: CChar.self),
                        Int32(source.count), Int32(capacity))
                }
            }
            return written < 0 ? nil : Array(output.prefix(Int(written)))
        }
    #endif

    /// Segment frames written by the project's codec are read by `lz4 -dc` (and `lz4 -t`
    /// finds them sound), and by the segment reader either way.
    @Test func ownFramesAreReadByTheLZ4Command() throws {
        guard let lz4 = LZ4Command.located() else { return }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        for (name, input) in Self.inputs + [
            ("over a block", Array(repeating: 1, count: (4 << 20) + 3))
        ] {
            var frame: [UInt8] = []
            input.withUnsafeBytes { LZ4Frame.encode($0, into: &frame, ownCodec: true) }
            let path = directory.appending("frame.lz4")
            try Data(frame).write(to: URL(fileURLWithPath: path))
            let (status, output) = try LZ4Command.run(lz4, ["-dc", path])
            #expect(status == 0 && output == input, "\(name)")
            #expect(try LZ4Command.run(lz4, ["-t", path]).0 == 0, "\(name)")
            for ownCodec in [true, false] where ownCodec || !LZ4Blocks.usesOwnCodec {
                var decoded: [UInt8] = []
                let failure = frame.withUnsafeBytes {
                    LZ4Frame.decode($0, rawLength: input.count, into: &decoded, ownCodec: ownCodec)
                }
                #expect(failure == nil && decoded == input, "\(name), own codec: \(ownCodec)")
            }
        }
    }

    /// What the `lz4` command writes, in every block size, linked or independent, with and
    /// without block checksums, content checksums and content sizes, and as HC, is read by
    /// the project's frame reader.
    @Test(arguments: ["-B4", "-B5", "-B6", "-B7"])
    func framesTheLZ4CommandWritesAreRead(blockSize: String) throws {
        guard let lz4 = LZ4Command.located() else { return }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let input = Self.inputs.filter {
            ["records", "repeats of noise", "noise"].contains($0.name)
        }
        .flatMap(\.bytes)
        let path = directory.appending("input")
        try Data(input).write(to: URL(fileURLWithPath: path))
        let variants: [[String]] = [
            [], ["-BD"], ["-BX"], ["--no-frame-crc"], ["--content-size"], ["-BD", "-BX", "-9"],
            ["-BD", "--content-size", "--no-frame-crc", "-12"], ["-1", "--favor-decSpeed"],
        ]
        for variant in variants {
            let (status, frame) = try LZ4Command.run(lz4, ["-c", blockSize] + variant + [path])
            try #require(status == 0, "lz4 \(variant)")
            let decoded = frame.withUnsafeBytes {
                LZ4FrameReader.decode($0, contentMax: input.count)
            }
            #expect((try? decoded.get()) == input, "lz4 \(blockSize) \(variant): \(decoded)")
        }
    }

    /// Damage and overlong content are refused with where and why.
    @Test func aDamagedOrOverlongStreamIsRefusedWithItsPosition() throws {
        guard let lz4 = LZ4Command.located() else { return }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let input = Self.inputs.first { $0.name == "records" }?.bytes ?? []
        let path = directory.appending("input")
        try Data(input).write(to: URL(fileURLWithPath: path))
        let (_, frame) = try LZ4Command.run(lz4, ["-c", "-B4", "-BX", path])
        func failure(_ bytes: [UInt8], contentMax: Int = 1 << 24) -> String? {
            let result = bytes.withUnsafeBytes { LZ4FrameReader.decode($0, contentMax: contentMax) }
            guard case .failure(let failure) = result else { return nil }
            return failure.description
        }
        var flipped = frame
        flipped[6] ^= 0x01
        #expect(failure(flipped)?.contains("header checksum") == true)
        flipped = frame
        flipped[frame.count / 2] ^= 0x10
        #expect(failure(flipped)?.contains("checksum does not match") == true)
        #expect(failure(Array(frame.dropLast(9)))?.contains("byte") == true)
        #expect(failure(frame, contentMax: input.count - 1)?.contains("bytes allowed") == true)
        #expect(failure(frame + [1, 2, 3, 4, 5])?.contains("no LZ4 magic") == true)
        #expect(failure(frame) == nil)
    }

    private func ownBlock(_ input: [UInt8], depth: Int?) -> [UInt8] {
        var output = Array(repeating: UInt8(0), count: LZ4BlockEncoder.bound(input.count))
        let size = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                guard let base = target.baseAddress else { return 0 }
                return LZ4BlockEncoder.compress(
                    source, into: base, capacity: target.count, depth: depth)
            }
        }
        return Array(output.prefix(size))
    }

    private func ownDecode(_ block: [UInt8], capacity: Int) -> [UInt8]? {
        var output = Array(repeating: UInt8(0), count: max(capacity, 1))
        let written = block.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target -> Int? in
                guard let base = target.baseAddress else { return nil }
                return LZ4BlockDecoder.decode(
                    source, into: base, start: 0, capacity: capacity, historyStart: 0)
            }
        }
        return written.map { Array(output.prefix($0)) }
    }
}
