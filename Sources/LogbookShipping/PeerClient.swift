import AsyncHTTPClient
import NIOCore
import NIOSSL

/// HTTP clients for pulling from peers.
public enum PeerClient {
    /// A client that verifies HTTPS peers against the system's roots, or, with `caFile`,
    /// against the PEM certificates in it (for nodes with their own certificate authority
    /// or a self-signed certificate). Shut it down with `shutdown()` when done.
    /// `connectTimeout` bounds connecting, TLS handshake included (a peer whose certificate
    /// is not trusted fails only when it runs out).
    public static func make(trusting caFile: String?, connectTimeout: TimeAmount = .seconds(10))
        throws -> HTTPClient
    {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = connectTimeout
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            configuration.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
