import Logbook
import NIOCore

/// One answer inside a streamed follow (`GET log?…&wait_ms=W&frames=1`): the peer keeps the
/// response open and writes a frame each time something new is durable past the last one,
/// and an empty frame after each `wait_ms` with nothing new, so one connection carries what
/// a long poll per answer would. A follower then costs the peer a chunk write per merge
/// instead of a request to parse, route, authorize and answer, and costs itself no request
/// to build: with a thousand followers on one hub that is most of the work.
///
/// A frame is a fixed 28-byte head, big-endian, then the batches verbatim:
///
///     magic "LBFR" (4) · payload length (4) · batch count (4) ·
///     next offset (8) · durable offset (8) · payload
///
/// The frame carries what the headers of one `GET log` answer carry (`Logbook-Next-Offset`,
/// `Logbook-Durable-Offset`, `Logbook-Batch-Count`); the batches are checked whole by
/// `ShippedBatchReader` as any answer's are. A frame's next offset is where the following
/// frame starts.
public struct FollowFrame: Sendable, Equatable {
    /// The media type of a streamed follow's body.
    public static let contentType = "application/vnd.logbook.follow-frames"
    /// The bytes before the payload.
    public static let headLength = 28
    static let magic: UInt32 = 0x4C42_4652  // "LBFR"

    /// The batches, verbatim (empty in a frame that says only "nothing new").
    public var payload: [UInt8]
    /// How many batches `payload` holds.
    public var batchCount: Int
    /// Where the batches end: the next frame's start.
    public var nextOffset: UInt64
    /// The sender's durable high watermark.
    public var durableOffset: UInt64

    /// A frame of `payload` with the offsets it announces.
    public init(payload: [UInt8], batchCount: Int, nextOffset: UInt64, durableOffset: UInt64) {
        self.payload = payload
        self.batchCount = batchCount
        self.nextOffset = nextOffset
        self.durableOffset = durableOffset
    }

    /// The frame's bytes. A payload or count beyond 32 bits cannot be framed (a sender
    /// never builds one: answers are bounded far below).
    public func encoded() -> ByteBuffer? {
        guard let length = UInt32(exactly: payload.count), let count = UInt32(exactly: batchCount)
        else { return nil }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.headLength + payload.count)
        buffer.writeInteger(Self.magic)
        buffer.writeInteger(length)
        buffer.writeInteger(count)
        buffer.writeInteger(nextOffset)
        buffer.writeInteger(durableOffset)
        buffer.writeBytes(payload)
        return buffer
    }

    /// Takes the first whole frame off the front of `buffer`: nil while it holds less than
    /// one frame (the rest is still on its way); throws when the bytes are not a frame or
    /// announce a payload above `payloadBytesMax`, before reading (or waiting for) it.
    public static func take(from buffer: inout ByteBuffer, payloadBytesMax: Int) throws
        -> FollowFrame?
    {
        guard buffer.readableBytes >= headLength else { return nil }
        let start = buffer.readerIndex
        guard let magic = buffer.getInteger(at: start, as: UInt32.self), magic == Self.magic,
            let length = buffer.getInteger(at: start + 4, as: UInt32.self),
            let count = buffer.getInteger(at: start + 8, as: UInt32.self),
            let next = buffer.getInteger(at: start + 12, as: UInt64.self),
            let durable = buffer.getInteger(at: start + 20, as: UInt64.self)
        else {
            throw ReplicationError(
                message: "a streamed follow sent bytes that are not a frame (no \"LBFR\" head)")
        }
        guard let payloadLength = Int(exactly: length), payloadLength <= payloadBytesMax else {
            throw ReplicationError(
                message:
                    "a streamed follow announced a frame of \(length) bytes, above the \(payloadBytesMax) asked for"
            )
        }
        guard buffer.readableBytes - headLength >= payloadLength else { return nil }
        buffer.moveReaderIndex(forwardBy: headLength)
        let payload = buffer.readBytes(length: payloadLength) ?? []
        return FollowFrame(
            payload: payload, batchCount: Int(count), nextOffset: next, durableOffset: durable)
    }
}

extension FollowFrame {
    /// The frame as the answer of one fetch, in `epoch` (the stream's `Logbook-Epoch`).
    func batches(epoch: UInt64?) -> FetchedBatches {
        FetchedBatches(
            bytes: payload, batchCount: batchCount, durableOffset: durableOffset,
            nextOffset: nextOffset, epoch: epoch)
    }
}
