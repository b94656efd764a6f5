import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request is refused or whose body takes too long, so that an
/// unauthenticated or slow client cannot hold it.
///
/// Hummingbird answers a request as soon as the handler returns (a token is checked on the
/// head, before the body is read), then reads the rest of the body before the next request
/// and keeps the connection while it comes: a `POST` head with a large `Content-Length` and
/// no token was answered 401 and then held for the idle timeout, or forever by a client
/// sending a byte every few seconds. So:
/// - after a 401 or 413, or any answer sent before its request's body ended, the connection
///   is closed once the answer is written and the body read (`closeAfterAnswer`: at most
///   1 MiB more, for at most 2 s): a client that is refused learns so and goes;
/// - a request whose body has not ended `bodyTimeout` after its head is cut.
/// It sits after Hummingbird's HTTP codec and passes every part on unchanged.
final class RequestBodyGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let bodyTimeout: TimeAmount
    /// A request's head came and its end has not.
    private var requestOpen = false
    private var bodyDeadline: Scheduled<Void>?
    /// A refused request's body is being read to its end, then the connection closes.
    private var closesAtRequestEnd = false
    private var drainedBytes = 0
    private var drain: Scheduled<Void>?
    /// The answer being written ends the connection.
    private var closesAfterAnswer = false

    init(bodyTimeout: TimeAmount) {
        self.bodyTimeout = bodyTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestOpen = true
            bodyDeadline?.cancel()
            bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: bodyTimeout) {
                context.close(promise: nil)
            }
        case .body(let bytes):
            if closesAtRequestEnd {
                drainedBytes += bytes.readableBytes
                if drainedBytes > Self.drainBytesMax { context.close(promise: nil) }
            }
        case .end:
            requestOpen = false
            bodyDeadline?.cancel()
            bodyDeadline = nil
            if closesAtRequestEnd {
                context.fireChannelRead(data)
                context.close(promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            let refused = response.status == .unauthorized || response.status == .contentTooLarge
            closesAfterAnswer = refused || requestOpen
            if closesAfterAnswer {
                // Said in the answer, so a client does not put the connection back in its
                // pool and send its next request into the close.
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .body: break
        case .end:
            guard closesAfterAnswer else { break }
            closesAfterAnswer = false
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.assumeIsolated().whenComplete { [self] _ in
                closeAfterAnswer(context)
            }
            context.write(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    /// Closes once the refused request has been read: at once when its body has ended;
    /// else when it ends, after `drainBytesMax` more bytes, or after `drainTime`. A client
    /// still writing its body when the connection closes sees its write fail (or a reset)
    /// instead of the answer (AsyncHTTPClient reports "I/O on closed channel" and never the
    /// 401), so an honest client is let finish a small body; a client announcing a large
    /// one, or trickling it, is not waited for.
    private func closeAfterAnswer(_ context: ChannelHandlerContext) {
        guard requestOpen else {
            context.close(promise: nil)
            return
        }
        closesAtRequestEnd = true
        drain = context.eventLoop.assumeIsolated().scheduleTask(in: Self.drainTime) {
            context.close(promise: nil)
        }
    }

    /// The most a refused client may still send before the connection is closed.
    static let drainBytesMax = 1 << 20
    /// The longest a refused client may go on sending before the connection is closed.
    static let drainTime = TimeAmount.seconds(2)

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        drain?.cancel()
        drain = nil
    }
}
