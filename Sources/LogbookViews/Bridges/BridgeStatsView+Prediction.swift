/// What Bridget tells a driver about a time slot: how likely each bridge is to open then.
extension BridgeStatsView {
    /// One bridge's outlook for a (weekday, hour) slot.
    public struct Prediction: Hashable, Sendable {
        /// The bridge id.
        public var entityId: Int64
        /// The bridge's name.
        public var name: String
        /// Openings this bridge had in the slot, any year or month.
        public var openings: Int
        /// Its share of every opening in the slot (Bridget's bucket probability, summed over
        /// the slot's years and months).
        public var probability: Double
        /// min(openings / 10, 1).
        public var confidence: Double
        /// Average minutes open in the slot (0 without openings).
        public var averageMinutes: Double
    }

    /// Outlook per bridge for `weekday` (1 = Sunday … 7 = Saturday) at `hour`, most likely
    /// first; bridges with no opening in the slot are listed with probability 0.
    public func predict(weekday: Int, hour: Int) -> [Prediction] {
        let all = openings().values
        var names: [Int64: String] = [:]
        var counts: [Int64: Int] = [:]
        var minutes: [Int64: Int64] = [:]
        for opening in all {
            names[opening.entityId] = opening.entityName
            guard opening.openedAt.weekday == weekday, opening.openedAt.hour == hour else {
                continue
            }
            counts[opening.entityId, default: 0] += 1
            minutes[opening.entityId, default: 0] += opening.minutesOpen
        }
        let slotTotal = counts.values.reduce(0, +)
        return names.keys.map { id in
            let count = counts[id] ?? 0
            return Prediction(
                entityId: id, name: names[id] ?? "", openings: count,
                probability: slotTotal == 0 ? 0 : Double(count) / Double(slotTotal),
                confidence: min(Double(count) / 10, 1),
                averageMinutes: count == 0 ? 0 : Double(minutes[id] ?? 0) / Double(count))
        }.sorted { ($0.probability, -$0.entityId) > ($1.probability, -$1.entityId) }
    }
}
