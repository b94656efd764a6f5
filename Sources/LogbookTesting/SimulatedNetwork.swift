/// A seeded network between simulated nodes: who can reach whom (partitions) and whether a
/// transfer is cut short. One seed reproduces a whole run; print it when a check fails.
public struct SimulatedNetwork: Sendable {
    private var random: SeededGenerator
    private var groups: [Int]
    /// The chance that a transfer is cut at a random byte.
    public var dropProbability: Double

    /// `nodes` nodes, all connected; transfers cut with `dropProbability`.
    public init(nodes: Int, seed: UInt64, dropProbability: Double = 0.1) {
        random = SeededGenerator(seed: seed)
        groups = Array(repeating: 0, count: nodes)
        self.dropProbability = dropProbability
    }

    /// Whether `receiver` can pull from `sender` now.
    public func canReach(_ receiver: Int, _ sender: Int) -> Bool {
        groups[receiver] == groups[sender]
    }

    /// Splits the nodes into two random sides (each node on one of them).
    public mutating func partition() {
        for node in groups.indices { groups[node] = Int.random(in: 0...1, using: &random) }
    }

    /// Reconnects everyone.
    public mutating func heal() {
        groups = Array(repeating: 0, count: groups.count)
    }

    /// The bytes as they arrive: whole, or cut at a random point (never empty unless the
    /// input is).
    public mutating func deliver(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > 1, random.chance(dropProbability) else { return bytes }
        return Array(bytes.prefix(Int.random(in: 1..<bytes.count, using: &random)))
    }

    /// A random number in `range`, from the network's seed.
    public mutating func pick(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }

    /// True with `probability`, from the network's seed.
    public mutating func chance(_ probability: Double) -> Bool { random.chance(probability) }
}
