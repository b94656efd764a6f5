import Foundation

/// A seeded network between simulated nodes: who can reach whom (partitions), whether a
/// transfer is cut short, whether an answer is lost after the peer acted on the request,
/// and how long a delivery is delayed. One seed reproduces a whole sequential run; print it
/// when a check fails.
///
/// Isolation: thread-safe (one lock), so transports of concurrently running sessions share
/// it; a run is reproducible only while its steps run one at a time.
public final class SimulatedNetwork: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var random: SeededGenerator
    private var groups: [Int]
    private var faults = Faults()
    /// The chance that a transfer is cut at a random byte.
    public let dropProbability: Double
    /// The chance that an answer is lost after the peer acted on the request (the sender
    /// sees a failure; the peer's side effect, e.g. a stored acknowledgement, stays).
    public let answerLossProbability: Double
    /// Deliveries wait up to this long (uniformly); zero keeps runs free of real time.
    public let delayMax: Duration

    /// What the network did, for checks that a run really met the faults it meant to test.
    public struct Faults: Sendable, Equatable {
        /// Transfers cut short.
        public var cut = 0
        /// Requests refused because a partition separated the two nodes.
        public var unreachable = 0
        /// Answers lost after the peer acted.
        public var answersLost = 0
    }

    /// `nodes` nodes, all connected.
    public init(
        nodes: Int, seed: UInt64, dropProbability: Double = 0.1, answerLossProbability: Double = 0,
        delayMax: Duration = .zero
    ) {
        random = SeededGenerator(seed: seed)
        groups = Array(repeating: 0, count: nodes)
        self.dropProbability = dropProbability
        self.answerLossProbability = answerLossProbability
        self.delayMax = delayMax
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Splits the nodes into two random sides (each node on one of them).
    public func partition() {
        locked {
            for node in groups.indices { groups[node] = Int.random(in: 0...1, using: &random) }
        }
    }

    /// Reconnects everyone.
    public func heal() {
        locked { groups = Array(repeating: 0, count: groups.count) }
    }

    /// The bytes as they arrive: whole, or cut at a random point (never empty unless the
    /// input is).
    public func deliver(_ bytes: [UInt8]) -> [UInt8] {
        locked {
            guard bytes.count > 1, random.chance(dropProbability) else { return bytes }
            faults.cut += 1
            return Array(bytes.prefix(Int.random(in: 1..<bytes.count, using: &random)))
        }
    }

    /// True when a whole message (one that cannot arrive in part) is lost on the way.
    public func dropsMessage() -> Bool {
        locked {
            guard random.chance(dropProbability) else { return false }
            faults.cut += 1
            return true
        }
    }

    /// True when the answer to a request the peer acted on is lost.
    public func losesAnswer() -> Bool {
        locked {
            guard random.chance(answerLossProbability) else { return false }
            faults.answersLost += 1
            return true
        }
    }

    /// Throws `SimulatedNetworkFault.unreachable` unless `receiver` can reach `sender`.
    public func checkReachable(_ receiver: Int, _ sender: Int) throws {
        try locked {
            guard groups[receiver] != groups[sender] else { return }
            faults.unreachable += 1
            throw SimulatedNetworkFault.unreachable(from: receiver, to: sender)
        }
    }

    /// Waits a random delay up to `delayMax` (nothing when it is zero).
    public func delay() async {
        guard delayMax > .zero else { return }
        let nanoseconds = locked {
            Int64.random(
                in:
                    0...max(
                        1,
                        delayMax.components.seconds * 1_000_000_000
                            + delayMax.components.attoseconds / 1_000_000_000), using: &random)
        }
        try? await Task.sleep(for: .nanoseconds(nanoseconds))
    }

    /// The faults injected so far.
    public var injected: Faults { locked { faults } }

    /// A random number in `range`, from the network's seed.
    public func pick(_ range: Range<Int>) -> Int {
        locked { Int.random(in: range, using: &random) }
    }

    /// True with `probability`, from the network's seed.
    public func chance(_ probability: Double) -> Bool { locked { random.chance(probability) } }
}

/// A failure the simulated network injected (as opposed to one the code under test raised).
public enum SimulatedNetworkFault: Error, Equatable, Sendable {
    /// A partition separates the two nodes.
    case unreachable(from: Int, to: Int)
    /// The message was lost on the way (a state page cut short fails to decode whole).
    case lost
    /// The peer acted on the request, but its answer was lost.
    case answerLost
}
