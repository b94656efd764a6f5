import LogbookShipping
import ServiceLifecycle

/// Notes every peer's lag every `interval` (`ShippingServer.sampleLag`) for the status
/// page's chart, until the node shuts down.
struct LagSamplerService: Service {
    let server: ShippingServer
    let interval: Duration

    func run() async {
        await cancelWhenGracefulShutdown { [server, interval] in
            while !Task.isCancelled {
                server.sampleLag()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
