import Foundation
import InMemoryLogging
import IntegrationHarness
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

/// Optional dependencies through the real registry and the staged example plugins: a plugin loads without them, is
/// told which are loaded as they come and go, and only hard dependencies hold a plugin in place.
@MainActor
@Suite("Optional dependencies: a feature loads without them and is told as they come and go")
struct OptionalDependencyTests {
    @Test("Home loads alone, and its optional features follow Settings and Products as they load and unload")
    func homeFollowsItsOptionalFeatures() throws {
        let workspace = try PluginWorkspace(linking: ["Home"])
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()

        #expect(registry.loadAll(from: workspace.plugins).map(\.isLoaded) == [true])
        let features = try #require(registry.optionalFeatures["Home"])
        #expect(features.present.isEmpty)

        try workspace.link(staged: "Settings")
        try workspace.link(staged: "Products")
        registry.loadAll(from: workspace.plugins)
        #expect(features.present == ["Products", "Settings"])

        let removed = try registry.unload("Settings")
        #expect(removed == ["settings.main"])
        #expect(features.present == ["Products"])
        #expect(registry.status(named: "Settings")?.state == .removed)
        #expect(registry.catalog.owner(ofRoute: "settings.main") == nil)
    }

    @Test("Each change reaches a follower of the set, once, with the set as it is then")
    func followersHearEachChange() async throws {
        let workspace = try PluginWorkspace(linking: ["Home", "Settings"])
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)
        let features = try #require(registry.optionalFeatures["Home"])
        var changes = features.changes().makeAsyncIterator()
        #expect(await changes.next() == ["Settings"])

        _ = try registry.unload("Settings")
        #expect(await changes.next() == [])
        registry.loadAll(from: workspace.plugins)
        #expect(await changes.next() == ["Settings"])
    }

    @Test("An optional dependency loaded in a version the manifest does not accept counts as absent")
    func versionOutsideTheRange() throws {
        let workspace = try PluginWorkspace(linking: ["Home"])
        defer { workspace.remove() }
        try workspace.addStaged("Settings") { $0.version = SemanticVersion(2, 0, 0) }
        let registry = workspace.makeRegistry()

        let statuses = registry.loadAll(from: workspace.plugins)

        #expect(statuses.allSatisfy { $0.isLoaded }, "\(statuses)")
        #expect(registry.optionalFeatures["Home"]?.present == [])
    }

    @Test("A hard dependency still refuses the unload and names the dependant; an optional one does not")
    func hardDependantRefusesTheUnload() throws {
        let workspace = try PluginWorkspace(linking: ["Settings", "Products", "UserProfile"])
        defer { workspace.remove() }
        try workspace.addStaged("Home") { manifest in
            for index in manifest.dependencies.indices where manifest.dependencies[index].name == "Settings" {
                manifest.dependencies[index].isOptional = false
            }
        }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)

        #expect(registry.hardDependents(of: "Settings") == ["Home"])
        #expect(registry.hardDependents(of: "Products") == [])
        #expect(throws: PluginRegistry.ChangeError.self) { try registry.unload("Settings") }
        #expect(registry.status(named: "Settings")?.isLoaded == true)
        #expect(try registry.unload("Products") == ["products.list", "products.detail"])
        #expect(registry.optionalFeatures["Home"]?.present == ["Settings", "UserProfile"])
    }

    @Test("Without its hard dependency a plugin is still refused, but its optional ones are never required")
    func onlyHardDependenciesAreRequired() throws {
        let workspace = try PluginWorkspace(linking: [])
        defer { workspace.remove() }
        try workspace.addStaged("Home") { manifest in
            for index in manifest.dependencies.indices where manifest.dependencies[index].name == "Settings" {
                manifest.dependencies[index].isOptional = false
            }
        }
        let registry = workspace.makeRegistry()

        let home = try #require(registry.loadAll(from: workspace.plugins).first)

        #expect(home.quarantineReason?.code == .dependencyMissing)
        #expect(home.quarantineReason?.message.contains("Settings") == true, "\(home)")
        #expect(home.quarantineReason?.message.contains("Products") == false, "\(home)")
    }

    @Test("Plugins load after the optional dependencies they are loaded with, so they start with them present")
    func optionalDependenciesLoadFirst() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()

        let order = registry.loadAll(from: workspace.plugins).map(\.name)

        #expect(order == ["Settings", "UserProfile", "Products", "Home"])
        #expect(registry.optionalFeatures["Home"]?.present == ["Products", "UserProfile", "Settings"])
        #expect(registry.optionalFeatures["Products"]?.present == ["UserProfile"])
    }
}
