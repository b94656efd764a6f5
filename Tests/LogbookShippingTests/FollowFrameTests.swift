import Logbook
import LogbookShipping
import NIOCore
import Testing

// The frames of a streamed follow: read back whole however the bytes are cut, and hostile
// heads refused before their payload is waited for or read.
struct FollowFrameTests {
    static let frames = [
        FollowFrame(payload: [1, 2, 3, 4, 5], batchCount: 1, nextOffset: 9, durableOffset: 12),
        FollowFrame(payload: [], batchCount: 0, nextOffset: 9, durableOffset: 12),
        FollowFrame(
            payload: Array(repeating: 7, count: 300), batchCount: 2, nextOffset: 1 << 40,
            durableOffset: .max),
    ]

    @Test func framesCutAnywhereAreReadBackWholeAndInOrder() throws {
        var stream: [UInt8] = []
        for frame in Self.frames {
            var bytes = try #require(frame.encoded())
            stream += bytes.readBytes(length: bytes.readableBytes) ?? []
        }
        for chunkLength in [1, 3, 28, 29, 100, stream.count] {
            var buffer = ByteBuffer()
            var read: [FollowFrame] = []
            var start = 0
            while start < stream.count {
                buffer.writeBytes(stream[start..<min(start + chunkLength, stream.count)])
                start += chunkLength
                while let frame = try FollowFrame.take(from: &buffer, payloadBytesMax: 1 << 10) {
                    read.append(frame)
                }
            }
            #expect(read == Self.frames, "cut every \(chunkLength) bytes")
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test func aHeadThatIsNotAFrameOrAnnouncesTooMuchIsRefused() throws {
        var notAFrame = ByteBuffer(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 0".utf8))
        #expect(throws: ReplicationError.self) {
            _ = try FollowFrame.take(from: &notAFrame, payloadBytesMax: 1 << 20)
        }
        // A head announcing 4 GiB: refused at once, not waited for.
        var huge = try #require(Self.frames[0].encoded())
        huge.setInteger(UInt32.max, at: huge.readerIndex + 4)
        var head = ByteBuffer(bytes: huge.getBytes(at: huge.readerIndex, length: 28) ?? [])
        #expect(throws: ReplicationError.self) {
            _ = try FollowFrame.take(from: &head, payloadBytesMax: 1 << 20)
        }
        var tooLarge = try #require(Self.frames[2].encoded())
        #expect(throws: ReplicationError.self) {
            _ = try FollowFrame.take(from: &tooLarge, payloadBytesMax: 299)
        }
        // A head alone, its payload still on the way: nothing yet, nothing consumed.
        var partial = ByteBuffer(bytes: huge.getBytes(at: huge.readerIndex, length: 30) ?? [])
        partial.setInteger(UInt32(5), at: 4)
        #expect(try FollowFrame.take(from: &partial, payloadBytesMax: 1 << 20) == nil)
        #expect(partial.readableBytes == 30)
    }
}
