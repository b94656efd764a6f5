import Foundation
import HummingbirdCore
import NIOCore

/// How many connections a server keeps open at once, and how long an idle one stays. An
/// unauthenticated client can open connections before any token is checked; without these
/// bounds, enough idle ones take every file descriptor the process may hold, and then the
/// log cannot open its next segment, write a snapshot, or accept a peer's request.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once; one past it is closed as soon as it is accepted. Default
    /// 512. The limit applied is also at most half the process's open-file limit
    /// (`RLIMIT_NOFILE`: 256 by default on macOS), so the other half stays for the log.
    public var connectionsMax = 512
    /// A connection with no request in progress for this long is closed; one being answered
    /// (a long poll, a follow stream) never is. Default 75 s: longer than AsyncHTTPClient
    /// keeps an idle pooled connection (60 s), so a puller does not race the close. Held
    /// between a millisecond and a year.
    public var idleTimeout = Duration.seconds(75)
    /// A connection that has sent nothing this long after it opened is closed: a client
    /// sends its request at once, so only a connection held for its own sake waits. Default
    /// 10 s; held between a millisecond and a year.
    public var firstRequestTimeout = Duration.seconds(10)
    /// A request whose body has not ended this long after its head is cut, and its
    /// connection closed (`RequestBodyGuard`): a slow or stalled upload cannot hold a
    /// connection. Default 60 s: a request body is at most a few MB (the servers'
    /// `requestBytesMax`), which a client on a slow network still sends in time. Held
    /// between a millisecond and a year.
    public var bodyTimeout = Duration.seconds(60)
    /// Answers that may be large built at once (`LargeAnswerSlots`: a whole `GET /changes`,
    /// a page of more than 16,384 changes, a `GET /snapshot`, a hub's whole `GET changes`);
    /// each holds what it answers from until its last byte is sent. Default 4, at least 1.
    public var largeAnswersMax = 4
    /// How long a request waits for one of those before it is answered 503 with
    /// `Retry-After`. Default 5 s.
    public var largeAnswerWaitMax = Duration.seconds(5)

    /// The defaults.
    public init() {}

    /// The limit applied: `connectionsMax`, at most half the open-file limit, at least 1.
    public var connectionsAllowed: Int {
        var limit = rlimit()
        guard getrlimit(openFilesResource, &limit) == 0 else { return max(1, connectionsMax) }
        let half = Int(clamping: limit.rlim_cur / 2)
        return max(1, min(connectionsMax, half))
    }

    /// The slots for large answers, shared by one server's requests; `refused` counts 503s.
    package func largeAnswerSlots(refused: @escaping @Sendable () -> Void) -> LargeAnswerSlots {
        LargeAnswerSlots(count: largeAnswersMax, waitMax: largeAnswerWaitMax, refused: refused)
    }

    /// An HTTP/1.1 server that applies these limits (each call counts its own connections).
    package func http1() -> HTTPServerBuilder {
        let open = OpenConnections(limit: connectionsAllowed)
        let (firstRequest, bodyTimeout) = (clamped(firstRequestTimeout), self.bodyTimeout)
        return .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    ConnectionAdmission(open, firstRequest: firstRequest),
                    RequestBodyGuard(bodyTimeout: clamped(bodyTimeout)),
                ],
                idleTimeout: clamped(idleTimeout)))
    }
}

/// `duration` held between a millisecond and a year, as NIO's time amount.
private func clamped(_ duration: Duration) -> TimeAmount {
    TimeAmount(min(max(duration, .milliseconds(1)), .seconds(31_536_000)))
}

#if canImport(Glibc)  // Foundation brings getrlimit
    private let openFilesResource = __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue))
#else
    private let openFilesResource = RLIMIT_NOFILE
#endif

/// The connections a server holds open now, shared by their `ConnectionAdmission`s, which
/// run on any of the server's event loops.
final class OpenConnections: @unchecked Sendable {
    // @unchecked: `open` is only touched under `lock`.
    let limit: Int
    private let lock = NSLock()
    private var open = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more in; false when that one is past the limit (it still counts until
    /// `remove`).
    func add() -> Bool {
        lock.withLock {
            open += 1
            return open <= limit
        }
    }

    func remove() {
        lock.withLock { open -= 1 }
    }
}

/// Counts its connection in while the connection lives and closes it at once when it is
/// one past the limit, or later when nothing arrives within `firstRequest`. It passes every
/// request part on untouched.
final class ConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    private let open: OpenConnections
    private let firstRequest: TimeAmount
    private var counted = false
    private var silence: Scheduled<Void>?

    init(_ open: OpenConnections, firstRequest: TimeAmount) {
        self.open = open
        self.firstRequest = firstRequest
    }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        guard open.add() else {
            context.close(promise: nil)
            return
        }
        silence = context.eventLoop.assumeIsolated().scheduleTask(in: firstRequest) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        silence?.cancel()
        silence = nil
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        silence?.cancel()
        silence = nil
        guard counted else { return }
        counted = false
        open.remove()
    }
}
