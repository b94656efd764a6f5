import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loopback ports for the processes these tests start with `--port`.
///
/// Picked below Linux's ephemeral range (32768–60999 by default): every test server bound
/// to port 0 and every outgoing connection of the suite takes its port from that range, so
/// a port picked inside it can be taken between the pick and the child's bind. That
/// happened in CI (a status-page test whose node never came up: 34916 refused). Each
/// candidate is also bound once here, so a port another program holds is skipped.
enum LocalPorts {
    static let range = 10_000..<32_000

    /// The first of `count` consecutive ports that were free a moment ago.
    static func consecutive(_ count: Int = 1) -> Int {
        for _ in 0..<50 {
            let base = Int.random(in: range.lowerBound..<(range.upperBound - count))
            if (base..<(base + count)).allSatisfy(isFree) { return base }
        }
        // Fifty busy draws: let the caller's own readiness check report the port it used.
        return Int.random(in: range.lowerBound..<(range.upperBound - count))
    }

    /// Whether a TCP socket binds to 127.0.0.1:`port` now.
    static func isFree(_ port: Int) -> Bool {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return bound == 0
    }
}
