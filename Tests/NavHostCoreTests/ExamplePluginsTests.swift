import Foundation
import Logging
import NavHostJSON
import NavHostKit
import NavHostTestSupport
import Testing

@testable import NavHostCore

/// The example plugins in `Plugins/`, loaded from the libraries the build made, and used only through the SDK's
/// protocols, as the daemon uses them.
@MainActor
@Suite("The example plugins, loaded from their built libraries")
struct ExamplePluginsTests {
    @Test(
        "Each example plugin's library hands over its feature module",
        arguments: [
            ("HomeFeature", "Home", ["home.main"]),
            ("UserProfileFeature", "UserProfile", ["profile.user", "profile.edit"]),
            ("ProductsFeature", "Products", ["products.list", "products.detail"]),
            ("SettingsFeature", "Settings", ["settings.main"]),
        ]
    )
    func eachPluginLoads(library: String, name: String, routes: [String]) throws {
        let module = try PluginLibrary(path: TestPaths.builtLibrary(library)).featureModule()
        #expect(module.name == name)
        #expect(module.screens.map(\.route) == routes)
        #expect(module.screens.allSatisfy { !$0.intents.isEmpty })
    }

    @Test("The Products plugin runs its catalog from the shipped products.json: load, filter, open a product")
    func productsCatalogEndToEnd() async throws {
        let module = try PluginLibrary(path: TestPaths.builtLibrary("ProductsFeature")).featureModule()
        let coordinator = try module.makeCoordinator(
            services: HostServices(
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                clock: ContinuousClock(),
                store: NothingStored(),
                resourceDirectory: Self.repository.appendingPathComponent("Plugins/Products/Resources").path
            )
        )
        let navigation = RecordedNavigation()
        let catalog = try coordinator.makeViewModel(
            for: RouteRequest(id: "products.list"),
            navigation: navigation,
            screen: ScreenID("s1")
        )

        await catalog.onAppear()
        #expect(try state(of: catalog)["status"] == "loaded")
        #expect(try state(of: catalog)["value"]?["totalCount"] == 6)

        try await send(IntentMessage(name: "filterByName", arguments: ["text": "cobol"]), to: catalog)
        let products = try state(of: catalog)["value"]?["products"]?.arrayValue
        #expect(products?.compactMap { $0["id"]?.stringValue } == ["p4"])
        #expect(products?.first?["price"] == "$29.99")

        try await send(IntentMessage(name: "onTappedProduct", arguments: ["productID": "p4"]), to: catalog)
        #expect(
            navigation.commands == [.navigate(RouteRequest(id: "products.detail", parameters: ["productID": "p4"]))]
        )
    }

    /// The repository's root folder, found from this file's path.
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // NavHostCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
}

/// What the daemon does with a ViewModel it only knows as `any ViewModel`: decode an intent for it.
@MainActor
private func send<VM: ViewModel>(_ message: IntentMessage, to viewModel: VM) async throws {
    try await viewModel.handle(message.decode(as: VM.Intent.self))
}

/// What the daemon does with a ViewModel it only knows as `any ViewModel`: encode its state.
@MainActor
private func state<VM: ViewModel>(of viewModel: VM) throws -> JSONValue {
    try JSONValueEncoder().encode(viewModel.state)
}

/// Records the navigation a screen asks for.
@MainActor
private final class RecordedNavigation: NavigationHandler {
    private(set) var commands: [NavigationCommand] = []

    func perform(_ command: NavigationCommand, from screen: ScreenID) -> Bool {
        commands.append(command)
        return true
    }
}

/// A store that holds nothing: the catalog keeps no data of its own.
private struct NothingStored: KeyValueStore {
    func value(forKey key: String) async throws -> JSONValue? { nil }
    func setValue(_ value: JSONValue, forKey key: String) async throws {}
    func removeValue(forKey key: String) async throws {}
}
