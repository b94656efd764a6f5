import Hummingbird
import Logbook
import LogbookShipping
import NIOCore
import ServiceLifecycle

/// A streamed follow being answered: what its request asked and where it stands.
struct StreamedFollow: Sendable {
    /// The request's bearer token, checked again before each frame.
    let token: String?
    let stream: HubStream
    let maxBytes: Int
    /// How long the stream stays silent at most: an empty frame follows each such wait.
    let wait: Duration
    /// The read made before the answer began (its failures are the answer's status).
    let first: FetchedBatches
    /// The merge count taken before `first` was read.
    let generation: UInt64
}

extension HubServer {
    /// Writes a streamed follow's frames (`FollowFrame`): the batches after the follower's
    /// offset each time a merge into the stream brings some, an empty frame after each
    /// `wait` without any, until `followStreamMax` has passed, the process shuts down, the
    /// token no longer grants the stream, a read fails (a position the stream no longer
    /// holds, `HubError.epochChanged`, among them), or an answer lies in another epoch than
    /// the response's `Logbook-Epoch` (or has one where the response named none, because
    /// the stream was empty). The stream then ends between
    /// frames, and the follower asks again from where the last frame ended, so a failure
    /// reaches it as the status of that request. A follower that stops reading holds this
    /// writer at its next frame until its connection closes (TCP's back pressure).
    func writeFrames(_ follow: StreamedFollow, to writer: inout any ResponseBodyWriter)
        async throws
    {
        let ends = ContinuousClock.now + configuration.followStreamMax
        var silentUntil = ContinuousClock.now + follow.wait
        var answer = follow.first
        var generation = follow.generation
        var hasWrittenFrame = false
        while true {
            if answer.batchCount > 0 || ContinuousClock.now >= silentUntil {
                guard let frame = Self.frame(of: answer) else { break }
                try await writer.write(frame)
                hasWrittenFrame = true
                silentUntil = ContinuousClock.now + follow.wait
            }
            guard ContinuousClock.now < ends, !Task.isShuttingDownGracefully, !Task.isCancelled,
                (try? await authorize(token: follow.token, stream: follow.stream.name, write: false))
                    != nil
            else { break }
            let offset = answer.nextOffset  // an answer with nothing new ends where it began
            if answer.batchCount == 0 {
                await notifier.waitForMerge(
                    into: follow.stream.id, after: generation,
                    timeout: silentUntil - ContinuousClock.now)
            }
            generation = notifier.generation(of: follow.stream.id)
            let page = HubReadCache.PageKey(
                stream: follow.stream.id, offset: offset, epoch: answer.epoch,
                maxBytes: follow.maxBytes)
            // A frame says no epoch: each is in the one the response's header named, so an
            // answer in another ends the stream, and the follower's next request gets it with
            // its own header. That holds for the first merge after the database restarted,
            // and for the first merge into a stream that was empty when the follow began (its
            // header named no epoch): a frame carrying that merge under no epoch would leave
            // the follower's position unchecked until its next request.
            guard let next = try? await batches(in: follow.stream, page, generation),
                next.epoch == follow.first.epoch
            else {
                // A follower reads a stream that ends before its first frame as a failed
                // request; this one ends only to be asked again. So the empty frame its
                // wait would have brought comes now (the merge came first).
                if !hasWrittenFrame, answer.batchCount == 0, let silent = Self.frame(of: answer) {
                    try await writer.write(silent)
                }
                break
            }
            answer = next
        }
        try await writer.finish(nil)
    }

    /// The frame that carries `answer` (empty when it brought no batches).
    private static func frame(of answer: FetchedBatches) -> ByteBuffer? {
        FollowFrame(
            payload: answer.bytes, batchCount: answer.batchCount, nextOffset: answer.nextOffset,
            durableOffset: answer.durableOffset
        ).encoded()
    }
}
