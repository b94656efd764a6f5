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
///   is closed once the answer is written: a client that is refused learns so and goes;
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
        case .body: break
        case .end:
            requestOpen = false
            bodyDeadline?.cancel()
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            let refused = response.status == .unauthorized || response.status == .contentTooLarge
            closesAfterAnswer = refused || requestOpen
        case .body: break
        case .end:
            guard closesAfterAnswer else { break }
            closesAfterAnswer = false
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            context.write(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }
}
