/// The Goodies' traversals. Every one visits edges in insertion order; relationship-type
/// filters are sets of `relationship_type` strings (nil: every type).
extension GraphIndex {
    /// The shortest path over outgoing edges from `from` to `to` with at most `maxDepth`
    /// hops, as entity ids; nil when there is none. `from == to` gives `[from]` (nil when
    /// unknown). The target need not have an entity record; other members without one are
    /// left out of the returned path.
    public func findPath(from: String, to: String, maxDepth: Int = 10) -> [String]? {
        lock.lock()
        defer { lock.unlock() }
        if from == to { return entities[from] == nil ? nil : [from] }
        var parent: [String: String] = [from: from]
        var frontier = [from]
        var depth = 0
        while !frontier.isEmpty, depth < maxDepth {
            depth += 1
            var next: [String] = []
            for node in frontier {
                for edge in edges(from: node, types: nil) where parent[edge.to] == nil {
                    parent[edge.to] = node
                    if edge.to == to { return pathEnding(at: to, parents: parent, start: from) }
                    next.append(edge.to)
                }
            }
            frontier = next
        }
        return nil
    }

    private func pathEnding(at end: String, parents: [String: String], start: String) -> [String] {
        var path = [end]
        var node = end
        while node != start, let previous = parents[node] {
            path.append(previous)
            node = previous
        }
        let ordered = Array(path.reversed())
        return ordered.enumerated().compactMap { index, id in
            index == ordered.count - 1 || entities[id] != nil ? id : nil
        }
    }

    /// Breadth-first over outgoing edges: each entity once with its depth. Ids without an
    /// entity record are neither reported nor expanded; an unknown start gives `[]`.
    public func bfs(from start: String, maxDepth: Int? = nil, types: Set<String>? = nil)
        -> [(id: String, depth: Int)]
    {
        lock.lock()
        defer { lock.unlock() }
        var visited: Set<String> = []
        var result: [(id: String, depth: Int)] = []
        var queue = [(start, 0)]
        var head = 0
        while head < queue.count {
            let (id, depth) = queue[head]
            head += 1
            if visited.contains(id) { continue }
            if let maxDepth, depth > maxDepth { continue }
            visited.insert(id)
            guard entities[id] != nil else { continue }
            result.append((id, depth))
            for edge in edges(from: id, types: types) where !visited.contains(edge.to) {
                queue.append((edge.to, depth + 1))
            }
        }
        return result
    }

    /// Depth-first (pre-order) over outgoing edges: each entity once; the same rules as `bfs`.
    public func dfs(from start: String, maxDepth: Int? = nil, types: Set<String>? = nil)
        -> [String]
    {
        lock.lock()
        defer { lock.unlock() }
        var visited: Set<String> = []
        var result: [String] = []
        // An explicit stack of (node, depth, next edge index) keeps deep graphs off the call stack.
        var stack: [(id: String, depth: Int, edges: [String], next: Int)] = []
        func enter(_ id: String, _ depth: Int) {
            if visited.contains(id) { return }
            if let maxDepth, depth > maxDepth { return }
            visited.insert(id)
            guard entities[id] != nil else { return }
            result.append(id)
            stack.append((id, depth, edges(from: id, types: types).map(\.to), 0))
        }
        enter(start, 0)
        while let top = stack.last {
            if top.next == top.edges.count {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            enter(top.edges[top.next], top.depth + 1)
        }
        return result
    }

    /// Every path of at most `maxLength` entities from `start` to `end` over outgoing edges,
    /// never revisiting an entity on the current path. `start == end` gives `[[start]]`.
    public func findAllPaths(
        from start: String, to end: String, maxLength: Int = 5, types: Set<String>? = nil
    ) -> [[String]] {
        lock.lock()
        defer { lock.unlock() }
        var paths: [[String]] = []
        var path = [start]
        var onPath: Set<String> = [start]
        func walk(_ node: String) {
            if path.count > maxLength { return }
            if node == end {
                paths.append(path)
                return
            }
            for edge in edges(from: node, types: types) where !onPath.contains(edge.to) {
                path.append(edge.to)
                onPath.insert(edge.to)
                walk(edge.to)
                onPath.remove(edge.to)
                path.removeLast()
            }
        }
        walk(start)
        return paths
    }

    /// Entities and relationships around `center`, following edges both ways and expanding
    /// entities at depth below `depth`. Each relationship appears once; an unknown center
    /// gives an empty result.
    public func subgraph(around center: String, depth: Int = 1, types: Set<String>? = nil)
        -> (entities: [String], relationships: [String])
    {
        lock.lock()
        defer { lock.unlock() }
        guard entities[center] != nil else { return ([], []) }
        var seenEntities: Set<String> = [center]
        var entityOrder = [center]
        var seenRelationships: Set<String> = []
        var relationshipOrder: [String] = []
        var frontier = [center]
        var level = 0
        while level < depth, !frontier.isEmpty {
            var next: [String] = []
            for node in frontier {
                for (relationshipId, neighbor) in neighbors(of: node, types: types) {
                    if seenRelationships.insert(relationshipId).inserted {
                        relationshipOrder.append(relationshipId)
                    }
                    if seenEntities.insert(neighbor).inserted {
                        if entities[neighbor] != nil { entityOrder.append(neighbor) }
                        next.append(neighbor)
                    }
                }
            }
            frontier = next
            level += 1
        }
        return (entityOrder, relationshipOrder)
    }

    /// Edges touching `id` either way, merged in insertion order, with the other end.
    private func neighbors(of id: String, types: Set<String>?) -> [(String, String)] {
        var touching = Set(outgoing[id] ?? []).union(incoming[id] ?? [])
        touching = touching.filter { relationshipId in
            guard let type = relationships[relationshipId]?.type else { return false }
            return types.map { $0.contains(type) } ?? true
        }
        return touching.compactMap { relationships[$0] }
            .sorted { ($0.sequence, $0.id) < ($1.sequence, $1.id) }
            .compactMap { relationship in
                guard let edge = relationship.edge else { return nil }
                return (relationship.id, edge.from == id ? edge.to : edge.from)
            }
    }

    /// Ancestors of `id` by breadth-first search over one relationship type: for part_of,
    /// located_in and contained_in (child → parent) along outgoing edges, for other types
    /// along incoming ones. The start is never included; `maxDepth` 0 gives `[]`.
    public func ancestors(of id: String, type: String, maxDepth: Int? = nil) -> [String] {
        let upward = GoodiesRelationshipType(rawValue: type)?.pointsToParent ?? false
        return hierarchy(from: id, type: type, outgoing: upward, maxDepth: maxDepth)
    }

    /// Descendants: `ancestors` in the opposite direction.
    public func descendants(of id: String, type: String, maxDepth: Int? = nil) -> [String] {
        let upward = GoodiesRelationshipType(rawValue: type)?.pointsToParent ?? false
        return hierarchy(from: id, type: type, outgoing: !upward, maxDepth: maxDepth)
    }

    private func hierarchy(from start: String, type: String, outgoing: Bool, maxDepth: Int?)
        -> [String]
    {
        lock.lock()
        defer { lock.unlock() }
        let types: Set<String> = [type]
        var visited: Set<String> = [start]
        var result: [String] = []
        var frontier = [start]
        var depth = 0
        while !frontier.isEmpty, maxDepth.map({ depth < $0 }) ?? true {
            depth += 1
            var next: [String] = []
            for node in frontier {
                let others =
                    outgoing
                    ? edges(from: node, types: types).map(\.to)
                    : edges(to: node, types: types).map(\.from)
                for other in others where entities[other] != nil {
                    if visited.insert(other).inserted {
                        result.append(other)
                        next.append(other)
                    }
                }
            }
            frontier = next
        }
        return result
    }

    /// Closed walks found by depth-first search over outgoing edges, such as `[a, b, c, a]`
    /// (a self-loop gives `[a, a]`): from `start`, or from every entity in insertion order.
    public func detectCycles(from start: String? = nil, types: Set<String>? = nil) -> [[String]] {
        lock.lock()
        defer { lock.unlock() }
        var cycles: [[String]] = []
        var visited: Set<String> = []
        var onStack: Set<String> = []
        var path: [String] = []
        // Depth-first with an explicit stack (a long chain must not exhaust the call stack);
        // each frame holds the node's edges as they were when it was entered.
        var frames: [(node: String, targets: [String], next: Int)] = []
        func enter(_ node: String) {
            visited.insert(node)
            onStack.insert(node)
            path.append(node)
            frames.append((node, edges(from: node, types: types).map(\.to), 0))
        }
        func walk(_ start: String) {
            enter(start)
            while let top = frames.last {
                guard top.next < top.targets.count else {
                    frames.removeLast()
                    path.removeLast()
                    onStack.remove(top.node)
                    continue
                }
                frames[frames.count - 1].next += 1
                let target = top.targets[top.next]
                if !visited.contains(target) {
                    enter(target)
                } else if onStack.contains(target), let begin = path.firstIndex(of: target) {
                    cycles.append(Array(path[begin...]) + [target])
                }
            }
        }
        if let start {
            walk(start)
        } else {
            for entity in entities.values.sorted(by: { $0.sequence < $1.sequence })
            where !visited.contains(entity.id) {
                walk(entity.id)
            }
        }
        return cycles
    }

    /// In-degree plus out-degree (0 for an unknown id).
    public func degreeCentrality(of id: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return (outgoing[id]?.count ?? 0) + (incoming[id]?.count ?? 0)
    }
}
