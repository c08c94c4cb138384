import Foundation
import IntegrationHarness
import NavHostKit
import NavHostTesting
import NavHostWire
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost
@testable import NavHostStorage

/// The four example plugins as the daemon gets them: the `.so` files the package builds, staged by `make build`
/// into `<build>/plugins`, loaded through the registry's real path (manifest, checksum, ELF check, SDK gate,
/// dependencies, `dlopen`, entry point, catalog), and driven through a session.
@MainActor
@Suite("The example plugins, loaded from their staged .so files through the registry")
struct ExamplePluginsTests {
    @Test("The registry loads the four staged plugins, each after its dependencies, as their manifests describe them")
    func loadsTheStagedPlugins() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let registry = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: state.path, logger: .silent)

        let statuses = registry.loadAll(from: TestPaths.stagedPlugins)

        #expect(statuses.map(\.name) == ["Settings", "UserProfile", "Products", "Home"])
        #expect(statuses.allSatisfy { $0.isLoaded }, "\(statuses)")
        #expect(statuses == registry.statuses)
        for status in statuses {
            #expect(status.version == (status.name == "Home" ? SemanticVersion(1, 1, 0) : SemanticVersion(1, 0, 0)))
            // Loaded from a private copy of the staged library, never from the file an operator may overwrite.
            #expect(status.libraryPath == "\(registry.stateDirectory)/plugin-images/\(status.name)-1.so")
        }
        #expect(
            registry.catalog.routes.map { "\($0.feature) \($0.screen.route)" } == [
                "Home home.main", "Products products.detail", "Products products.list", "UserProfile profile.edit",
                "UserProfile profile.user", "Settings settings.main",
            ]
        )
    }

    @Test("The staged libraries are the ones the build made (after changing a plugin, run `make build`)")
    func stagedLibrariesAreCurrent() throws {
        for name in PluginWorkspace.examples {
            let manifest = try PluginWorkspace.stagedManifest(name)
            #expect(
                manifest.sha256 == (try SHA256.hexDigest(ofFileAt: TestPaths.builtLibrary("\(name)Feature"))),
                "\(name)"
            )
            #expect(manifest.sdkVersion == NavHostKitVersion.current)
        }
    }

    @Test("Scanning the staged folder lists the four plugins from their manifests, without loading anything")
    func scanReadsManifestsOnly() throws {
        let registry = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: "/nonexistent", logger: .silent)

        let found = registry.scan(TestPaths.stagedPlugins)

        #expect(found.map(\.name) == ["Home", "Products", "Settings", "UserProfile"])
        #expect(found.allSatisfy { $0.state == .found && $0.libraryPath == nil })
        #expect(found.first { $0.name == "Products" }?.manifest?.resources == ["products.json"])
        #expect(
            found.first { $0.name == "Home" }?.manifest?.dependencies.map(\.name) == [
                "Products", "UserProfile", "Settings",
            ]
        )
        #expect(registry.statuses.isEmpty && registry.catalog.featureNames.isEmpty)
    }

    @Test("Home → Products → a product → its seller's profile → edit → save → back, with every state and revision")
    func journeyFromHomeToTheSellersProfileAndBack() async throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let registry = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: state.path, logger: .silent)
        registry.loadAll(from: TestPaths.stagedPlugins)
        let driver = try SessionDriver(catalog: registry.catalog, root: "home.main")
        defer { driver.close() }
        try await driver.settle()
        #expect(driver.revision == 0)
        #expect(driver.state == ["tiles": ["products", "profile", "settings"]], "a tile per loaded feature")

        // Home → the catalog.
        try await driver.send("onTappedProducts")
        #expect(driver.routeIDs == ["home.main", "products.list"])
        #expect(driver.state["status"] == "loaded")
        #expect(driver.state["value"]?["totalCount"] == 6)
        #expect(describe(driver.takeEvents()) == ["1 pushed products.list", "2 s2 loading", "3 s2 loaded"])

        // The catalog → a product.
        try await driver.send("onTappedProduct", ["productID": "p4"])
        #expect(driver.routeIDs == ["home.main", "products.list", "products.detail"])
        #expect(driver.state["value"]?["name"] == "COBOL Field Guide")
        #expect(driver.state["value"]?["seller"] == ["id": "u2", "name": "Grace Hopper"])
        #expect(describe(driver.takeEvents()) == ["4 pushed products.detail", "5 s3 loading", "6 s3 loaded"])

        // The product → its seller's profile, in the UserProfile plugin.
        try await driver.send("onTappedSeller")
        #expect(driver.routeIDs == ["home.main", "products.list", "products.detail", "profile.user"])
        #expect(driver.state["value"]?["name"] == "Grace Hopper")
        #expect(driver.state["value"]?["email"] == "grace.hopper@example.org")
        #expect(describe(driver.takeEvents()) == ["7 pushed profile.user", "8 s4 loading", "9 s4 loaded"])

        // The profile → its edit screen.
        try await driver.send("onTappedEditProfile")
        #expect(driver.routeIDs.last == "profile.edit")
        #expect(driver.state["value"]?["email"] == "grace.hopper@example.org")
        #expect(describe(driver.takeEvents()) == ["10 pushed profile.edit", "11 s5 loading", "12 s5 loaded"])

        // Edit the email address.
        try await driver.send("onChangedEmail", ["email": "grace@navy.example"])
        #expect(driver.state["value"]?["email"] == "grace@navy.example")
        #expect(describe(driver.takeEvents()) == ["13 s5 loaded"])

        // Save: the form shows it is saving (14); then the edit screen pops itself, in the same stretch as the
        // saved form (so that form is never reported), and the profile below, which follows the store, shows the
        // change. Those two come from independent tasks, so either may take revision 15.
        try await driver.send("onTappedSave")
        #expect(driver.routeIDs == ["home.main", "products.list", "products.detail", "profile.user"])
        #expect(driver.state["value"]?["email"] == "grace@navy.example")
        let saved = describe(driver.takeEvents())
        #expect(saved.count == 3 && saved.first == "14 s5 loaded", "\(saved)")
        #expect(
            Set(saved.dropFirst()) == ["15 popped s5", "16 s4 loaded"]
                || Set(saved.dropFirst()) == ["15 s4 loaded", "16 popped s5"],
            "\(saved)"
        )
        let stored = try JSONParser().parse(
            Data(contentsOf: URL(fileURLWithPath: "\(state.path)/store/UserProfile.json"))
        )
        #expect(stored["users/u2"]?["email"] == "grace@navy.example", "saved in the plugin's own store file")

        // Back: from the seller's profile to the product.
        try driver.session.pop()
        try await driver.settle()
        #expect(driver.routeIDs == ["home.main", "products.list", "products.detail"])
        #expect(driver.state["value"]?["name"] == "COBOL Field Guide")
        #expect(describe(driver.takeEvents()) == ["17 popped s4"])
        #expect(driver.revision == 17)
    }

    @Test("Saving an email address without a domain shows the error in the edit screen's state and saves nothing")
    func invalidEmailIsShownAndNotSaved() async throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let registry = PluginRegistry(catalog: FeatureCatalog(), stateDirectory: state.path, logger: .silent)
        registry.loadAll(from: TestPaths.stagedPlugins)
        let driver = try SessionDriver(catalog: registry.catalog, root: "profile.edit", ["userID": "u1"])
        defer { driver.close() }
        try await driver.settle()
        _ = driver.takeEvents()

        try await driver.send("onChangedEmail", ["email": "ada@"])
        try await driver.send("onTappedSave")

        #expect(driver.routeIDs == ["profile.edit"], "a refused save stays on the form")
        #expect(
            driver.state == [
                "status": "loaded",
                "value": [
                    "name": "Ada Lovelace", "email": "ada@", "nameError": nil,
                    "emailError": "Enter an email address like name@example.com.", "isSaving": false,
                    "saveError": nil,
                ],
            ]
        )
        #expect(describe(driver.takeEvents()) == ["3 s1 loaded", "4 s1 loaded", "5 s1 loaded"])
        let stored = try JSONParser().parse(
            Data(contentsOf: URL(fileURLWithPath: "\(state.path)/store/UserProfile.json"))
        )
        #expect(stored["users/u1"]?["email"] == "ada.lovelace@example.org")
    }
}

/// Events as compact lines: `"3 pushed products.detail"`, `"4 s3 loaded"` (a state change: screen, status),
/// `"14 popped s5"`.
@MainActor
private func describe(_ events: [SessionEvent]) -> [String] {
    events.map { event in
        switch event.change {
        case .pushed(let screen): "\(event.revision) pushed \(screen.route.id)"
        case .popped(let ids): "\(event.revision) popped \(ids.map(\.rawValue).joined(separator: " "))"
        case .replaced(let screens): "\(event.revision) replaced \(screens.map(\.route.id).joined(separator: " "))"
        case .stateChanged(let id, let state): "\(event.revision) \(id) \(state["status"]?.stringValue ?? "\(state)")"
        case .errorChanged(let id, let error): "\(event.revision) \(id) error \(error ?? "cleared")"
        }
    }
}
