import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on loopback that forwards to one upstream port and, per connection, injects
/// a fault its owner picks: a delay before every chunk, a cut after some bytes, or the
/// client's first chunk sent twice (to the real upstream connection and to a second one
/// whose answer is thrown away), which replays a request the way a retrying client or a
/// middlebox would. The nemesis puts one in front of each node, and peers pull through it.
final class LoopbackProxy: @unchecked Sendable {
    // @unchecked: `chooser` and `counts` are guarded by `lock`; the sockets are owned by
    // the threads that pump them.
    enum Fault: Hashable, Sendable {
        case none
        case delay(milliseconds: Int)
        case cut(afterBytes: Int)
        case duplicate
    }

    /// The port clients connect to.
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var chooser: @Sendable () -> Fault = { .none }
    private var faults: [String: Int] = [:]
    private var carriedUpstream = 0

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        listener = try Self.socketBound()
        port = try Self.boundPort(listener)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// From now on, each new connection gets the fault `choose` returns.
    func setFaults(_ choose: @escaping @Sendable () -> Fault) { lock.withLock { chooser = choose } }

    /// Faults injected so far, by kind ("delay", "cut", "duplicate").
    var injected: [String: Int] { lock.withLock { faults } }

    /// Bytes forwarded from clients to the upstream so far: a test waits on it to know a
    /// request is under way (a body half sent), where a sleep would only guess.
    var bytesToUpstream: Int { lock.withLock { carriedUpstream } }

    /// Stops accepting; connections already made run on until their ends close.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }  // the listener was shut down
            let fault = lock.withLock { () -> Fault in
                let fault = chooser()
                switch fault {
                case .none: break
                case .delay: faults["delay", default: 0] += 1
                case .cut: faults["cut", default: 0] += 1
                case .duplicate: faults["duplicate", default: 0] += 1
                }
                return fault
            }
            Thread.detachNewThread { [self] in serve(client, fault: fault) }
        }
    }

    private func serve(_ client: Int32, fault: Fault) {
        guard let upstream = try? Self.connected(to: upstreamPort) else {
            close(client)
            return
        }
        let budget = Budget(fault: fault)
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread { [self] in
            pump(from: upstream, to: client, budget: budget, duplicateFirst: false, upstream: false)
            done.leave()
        }
        pump(
            from: client, to: upstream, budget: budget, duplicateFirst: fault == .duplicate,
            upstream: true)
        done.wait()
        close(client)
        close(upstream)
    }

    /// Copies `source` to `target` until either end closes or the budget is spent, then
    /// shuts both down (so the other direction ends too). `upstream`: client to upstream.
    private func pump(
        from source: Int32, to target: Int32, budget: Budget, duplicateFirst: Bool,
        upstream: Bool
    ) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var first = duplicateFirst
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let chunk = Array(buffer[0..<count])
            if first {
                first = false
                replay(chunk)
            }
            if case .delay(let milliseconds) = budget.fault {
                usleep(useconds_t(milliseconds * 1000))
            }
            let allowed = budget.take(count)
            guard allowed > 0, Self.sendAll(target, chunk[0..<allowed]) else { break }
            if upstream { lock.withLock { carriedUpstream += allowed } }
            if allowed < count { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(target, Int32(SHUT_RDWR))
    }

    /// Sends `chunk` on a connection of its own and reads its answer away.
    private func replay(_ chunk: [UInt8]) {
        guard let duplicate = try? Self.connected(to: upstreamPort) else { return }
        Thread.detachNewThread {
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(
                duplicate, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Self.sendAll(duplicate, chunk[...]) {
                var sink = [UInt8](repeating: 0, count: 16 * 1024)
                while sink.withUnsafeMutableBytes({ recv(duplicate, $0.baseAddress, $0.count, 0) })
                    > 0
                {}
            }
            close(duplicate)
        }
    }

    /// The bytes a connection may still carry (both directions together) under a cut.
    private final class Budget: @unchecked Sendable {
        // @unchecked: `remaining` is guarded by `lock`.
        let fault: Fault
        private let lock = NSLock()
        private var remaining: Int

        init(fault: Fault) {
            self.fault = fault
            if case .cut(let bytes) = fault { remaining = bytes } else { remaining = .max }
        }

        func take(_ count: Int) -> Int {
            lock.withLock {
                let allowed = min(count, remaining)
                remaining -= allowed
                return allowed
            }
        }
    }

    private static func sendAll(_ socket: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a peer gone must not raise SIGPIPE in the test process.
            let count = bytes.withUnsafeBytes {
                send(
                    socket, $0.baseAddress?.advanced(by: sent), $0.count - sent, Int32(MSG_NOSIGNAL)
                )
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    private struct SocketFailure: Error {
        let call: String
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func newSocket() throws -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SocketFailure(call: "socket") }
        return descriptor
    }

    private static func socketBound() throws -> Int32 {
        let descriptor = try newSocket()
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            close(descriptor)
            throw SocketFailure(call: "bind")
        }
        return descriptor
    }

    private static func boundPort(_ descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else { throw SocketFailure(call: "getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func connected(to port: Int) throws -> Int32 {
        let descriptor = try newSocket()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw SocketFailure(call: "connect")
        }
        return descriptor
    }
}
