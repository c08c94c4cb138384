import Foundation
import IntegrationHarness
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

/// A preference changed through one registry is still there for a registry built afresh over the same state
/// folder: what a daemon restart looks like at this level (one `FileKeyValueStore` file per feature).
@MainActor
@Suite("Settings survive a fresh registry over the same state folder")
struct SettingsPersistenceTests {
    @Test("A theme and a language changed through one registry are there after building a new one")
    func preferencesSurviveANewRegistry() async throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }

        do {
            let registry = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: state.path, logger: .silent)
            registry.loadAll(from: TestPaths.stagedPlugins)
            let driver = try SessionDriver(catalog: registry.catalog, root: "settings.main")
            defer { driver.close() }
            try await driver.settle()
            #expect(driver.state["value"]?["theme"] == "system", "a new store starts with the defaults")

            try await driver.send("onChangedTheme", ["theme": "dark"])
            try await driver.send("onChangedLanguage", ["language": "fr"])
            #expect(driver.state["value"]?["theme"] == "dark")
        }

        let restarted = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: state.path, logger: .silent)
        restarted.loadAll(from: TestPaths.stagedPlugins)
        let driver = try SessionDriver(catalog: restarted.catalog, root: "settings.main")
        defer { driver.close() }
        try await driver.settle()

        #expect(driver.state["value"]?["theme"] == "dark")
        #expect(driver.state["value"]?["language"] == "fr")
        let file = try JSONParser().parse(Data(contentsOf: URL(fileURLWithPath: "\(state.path)/store/Settings.json")))
        #expect(file["preferences"]?["theme"] == "dark", "one JSON file per feature: <state>/store/Settings.json")
    }
}
