/// The order to load plugins in, from their dependencies: every plugin after the plugins it depends on.
///
/// Plugins caught in a cycle (`A` needs `B`, `B` needs `A`) cannot be ordered; they are reported in ``cycles`` and
/// left out of ``order``. Dependencies on names that are not in the graph are ignored here (the registry reports
/// them when it checks the plugin). Among plugins free to load, the order is by name, so it never depends on the
/// order folders are listed in.
package struct DependencyGraph: Sendable {
    /// Every plugin that is not in a cycle, each after its dependencies.
    package private(set) var order: [String] = []
    /// The groups of plugins that depend on each other in a cycle, each sorted by name; sorted by first name.
    package private(set) var cycles: [[String]] = []

    /// Orders `dependencies`: each plugin's name mapped to the names it depends on.
    package init(dependencies: [String: [String]]) {
        let names = dependencies.keys.sorted()
        var search = CycleSearch(dependencies: dependencies)
        for name in names { search.visit(name) }
        cycles = search.components
            .filter { $0.count > 1 || (dependencies[$0[0]] ?? []).contains($0[0]) }
            .map { $0.sorted() }
            .sorted { $0[0] < $1[0] }
        let inCycle = Set(cycles.joined())

        // Kahn's algorithm over the plugins outside cycles, always taking the first ready name.
        var waitingOn: [String: Set<String>] = [:]
        var dependents: [String: [String]] = [:]
        for name in names where !inCycle.contains(name) {
            let needed = Set((dependencies[name] ?? []).filter { dependencies[$0] != nil && !inCycle.contains($0) })
            waitingOn[name] = needed
            for dependency in needed { dependents[dependency, default: []].append(name) }
        }
        var ready = waitingOn.filter(\.value.isEmpty).keys.sorted()
        while !ready.isEmpty {
            let name = ready.removeFirst()
            order.append(name)
            for dependent in dependents[name] ?? [] {
                waitingOn[dependent]?.remove(name)
                if waitingOn[dependent]?.isEmpty == true {
                    ready.insert(dependent, at: ready.firstIndex { $0 > dependent } ?? ready.endIndex)
                }
            }
        }
    }
}

// MARK: - Private

/// Tarjan's strongly connected components: each component with more than one member is a cycle.
private struct CycleSearch {
    let dependencies: [String: [String]]
    var index: [String: Int] = [:]
    var lowLink: [String: Int] = [:]
    var stack: [String] = []
    var onStack: Set<String> = []
    var components: [[String]] = []

    init(dependencies: [String: [String]]) {
        self.dependencies = dependencies
    }

    mutating func visit(_ name: String) {
        guard index[name] == nil else { return }
        index[name] = index.count
        lowLink[name] = index[name]
        stack.append(name)
        onStack.insert(name)
        for dependency in dependencies[name] ?? [] where dependencies[dependency] != nil {
            if index[dependency] == nil {
                visit(dependency)
                lowLink[name] = min(lowLink[name]!, lowLink[dependency]!)
            } else if onStack.contains(dependency) {
                lowLink[name] = min(lowLink[name]!, index[dependency]!)
            }
        }
        guard lowLink[name] == index[name] else { return }
        var component: [String] = []
        while let member = stack.popLast() {
            onStack.remove(member)
            component.append(member)
            if member == name { break }
        }
        components.append(component)
    }
}
