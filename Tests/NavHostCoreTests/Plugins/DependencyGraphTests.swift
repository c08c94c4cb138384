import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

@Suite("The order plugins load in")
struct DependencyGraphTests {
    @Test("Every plugin comes after its dependencies; plugins free to load come by name")
    func dependenciesFirst() {
        let graph = DependencyGraph(dependencies: [
            "Home": ["Products", "UserProfile", "Settings"],
            "Products": ["UserProfile"],
            "Settings": [],
            "UserProfile": [],
        ])
        #expect(graph.order == ["Settings", "UserProfile", "Products", "Home"])
        #expect(graph.cycles.isEmpty)
    }

    @Test("Plugins in a cycle are left out and reported; a plugin that needs one of them is still ordered")
    func cycles() {
        let graph = DependencyGraph(dependencies: [
            "A": ["B"], "B": ["C"], "C": ["A"],
            "D": ["E"], "E": ["D"],
            "F": ["A"],
            "G": [],
        ])
        #expect(graph.cycles == [["A", "B", "C"], ["D", "E"]])
        #expect(graph.order == ["F", "G"])
    }

    @Test("Dependencies on plugins that are not in the folder are left for the registry to report")
    func unknownDependencies() {
        let graph = DependencyGraph(dependencies: ["Orders": ["Payments"], "Payments": ["Ledger"], "Z": []])
        #expect(graph.order == ["Payments", "Orders", "Z"])
    }
}
