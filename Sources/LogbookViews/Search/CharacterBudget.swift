/// The query's characters as a multiset, to count how many of a name's characters it can
/// match (difflib's quick_ratio numerator) without allocating per name.
struct CharacterBudget {
    private var ascii = [Int32](repeating: 0, count: 128)
    private var other: [UInt32: Int32] = [:]
    private var spent: [UInt32] = []

    init(_ query: [UInt32]) {
        for scalar in query {
            if scalar < 128 { ascii[Int(scalar)] += 1 } else { other[scalar, default: 0] += 1 }
        }
    }

    /// Characters of `name` matched by distinct query characters.
    mutating func common(with name: [UInt32]) -> Int {
        for scalar in name {
            if scalar < 128 {
                guard ascii[Int(scalar)] > 0 else { continue }
                ascii[Int(scalar)] -= 1
            } else {
                guard let count = other[scalar], count > 0 else { continue }
                other[scalar] = count - 1
            }
            spent.append(scalar)
        }
        let matched = spent.count
        for scalar in spent {  // give the budget back for the next name
            if scalar < 128 { ascii[Int(scalar)] += 1 } else { other[scalar, default: 0] += 1 }
        }
        spent.removeAll(keepingCapacity: true)
        return matched
    }
}
