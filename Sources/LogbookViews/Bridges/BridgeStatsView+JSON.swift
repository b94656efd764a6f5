// The drawbridge answers as `logbook bridges --json` prints them: snake_case keys, one
// object per bridge, bucket or prediction, for JSONSerialization.

extension BridgeStatsView.BridgeSummary {
    /// This summary as a JSON object.
    public var jsonObject: [String: Any] {
        [
            "entityid": entityId, "name": name, "openings": openings,
            "average_minutes": averageMinutes, "longest_minutes": longestMinutes,
            "currently_open": currentlyOpen,
        ]
    }
}

extension BridgeStatsView.Prediction {
    /// This prediction as a JSON object, with Bridget's labels.
    public var jsonObject: [String: Any] {
        [
            "entityid": entityId, "name": name, "openings": openings,
            "probability": probability, "confidence": confidence,
            "average_minutes": averageMinutes,
            "probability_label": BridgeStatsView.probabilityLabel(probability),
            "confidence_label": BridgeStatsView.confidenceLabel(confidence),
        ]
    }
}

extension BridgeStatsView.Bucket {
    /// This bucket as a JSON object.
    public var jsonObject: [String: Any] {
        [
            "entityid": key.entityId, "year": key.year, "month": key.month,
            "weekday": key.weekday, "hour": key.hour, "count": count,
            "total_minutes": totalMinutes, "average_minutes": averageMinutes,
            "longest_minutes": longestMinutes, "shortest_minutes": shortestMinutes,
            "probability": probability, "confidence": confidence,
        ]
    }
}

extension BridgeTallies.Validation {
    /// The tally as a JSON object: failures counted by rule.
    public var jsonObject: [String: Any] {
        [
            "openings": openings, "valid": valid,
            "failures": Dictionary(
                uniqueKeysWithValues: failures.map { ($0.key.rawValue, $0.value.count) }),
        ]
    }
}
