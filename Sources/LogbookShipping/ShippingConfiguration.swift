import Prometheus

/// How a node serves its log and talks to peers.
public struct ShippingConfiguration: Sendable {
    /// The bearer token every request must carry (compared in constant time).
    public var token: String
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port (0: any free port; the running server reports the one it got).
    public var port = 0
    /// The largest request body accepted (`POST /changes`, `POST /ack`); larger gets 413.
    public var requestBytesMax = 16 << 20
    /// The largest `/log` response; a pull's `max_bytes` is clamped to it.
    public var responseBytesMax = 8 << 20
    /// The longest a `/log?wait_ms=` request is held open waiting for new durable records.
    public var logWaitMax = Duration.seconds(30)
    /// The largest number of changes `GET /changes` and `GET /snapshot` return in one body.
    public var changesPerResponseMax = 1_000_000

    /// Connections open at once and how long an idle one stays, for the data listener and
    /// the admin listener each (`ConnectionLimits`: 512, 75 s).
    public var connections = ConnectionLimits()

    /// Also serve the status page, `/status` and `/metrics` without a token on this port
    /// (0: any free one; nil, the default: no admin listener). See
    /// `ShippingServer.adminApplication`.
    public var adminPort: Int?
    /// The admin listener's address: loopback unless set, since it asks for no token.
    public var adminHost = "127.0.0.1"

    /// Serve HTTPS with these PEM files (nil: plain HTTP).
    public var tls: TLSFiles?

    /// Where `GET /metrics` reads from (nil: it answers 404). Bootstrap swift-metrics with a
    /// `PrometheusMetricsFactory` on the same registry, before opening the Logbook, for the
    /// engine's, replication's and Hummingbird's figures to appear there too
    /// (`LogbookNode.bootstrapMetrics` does both).
    public var metricsRegistry: PrometheusCollectorRegistry?

    /// A PEM certificate chain and its private key.
    public struct TLSFiles: Sendable {
        /// The certificate chain file.
        public var certificateChain: String
        /// The private key file.
        public var privateKey: String

        /// The two files.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// A configuration with `token` and the defaults above.
    public init(token: String) {
        self.token = token
    }
}

/// Checks a request's `Authorization: Bearer <token>` header without leaking, through
/// timing, how much of the token matched.
enum BearerToken {
    static func matches(_ header: String?, token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let given = Array(header.utf8.dropFirst("Bearer ".utf8.count))
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<max(given.count, expected.count) {
            let left = index < given.count ? given[index] : 0
            let right = index < expected.count ? expected[index] : 0
            difference |= left ^ right
        }
        return difference == 0 && !expected.isEmpty
    }
}
