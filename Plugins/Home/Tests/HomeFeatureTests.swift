import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import HomeFeature

@MainActor
@Suite("The Home feature module")
struct HomeFeatureTests {
    /// One value of every route case. The `switch` stops compiling when a case is added, as a reminder to list it.
    private static let everyRoute: [HomeRoute] = {
        let routes: [HomeRoute] = [.main]
        for route in routes {
            switch route {
            case .main: break
            }
        }
        return routes
    }()

    @Test("Its screens list every route, with the route's parameters")
    func screensListEveryRoute() throws {
        let feature = HomeFeature()
        let requests = try Self.everyRoute.map { try $0.request }
        #expect(feature.screens.map(\.route) == requests.map(\.id))
        #expect(feature.screens.map(\.parameters) == requests.map { Array($0.parameters.keys) })
        #expect(feature.screens.map(\.intents) == [HomeViewModel.Intent.names])
        #expect(feature.screens.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("Every intent name of the root screen decodes from its wire form")
    func intentsDecode() {
        let messages = [
            IntentMessage(name: "onTappedProducts"),
            IntentMessage(name: "onTappedProfile"),
            IntentMessage(name: "onTappedSettings"),
        ]
        #expect(messages.map(\.name) == HomeViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: HomeViewModel.Intent.self) }
        }
        #expect(throws: IntentError.unknownIntent("onTappedHome")) {
            try IntentMessage(name: "onTappedHome").decode(as: HomeViewModel.Intent.self)
        }
    }

    @Test("The coordinator builds the root ViewModel, and refuses other routes")
    func coordinatorBuildsViewModels() throws {
        let coordinator = try HomeFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        #expect(
            try coordinator.makeViewModel(for: RouteRequest(id: "home.main"), navigation: handler, screen: .init("s1"))
                is HomeViewModel
        )
        #expect(throws: RouteError.unknownRoute("products.list")) {
            try coordinator.makeViewModel(
                for: RouteRequest(id: "products.list"),
                navigation: handler,
                screen: .init("s1")
            )
        }
    }

    @Test("Wired by the coordinator, each tap asks the host for the other feature's route")
    func wiredNavigation() async throws {
        let coordinator = try HomeFeature().makeCoordinator(
            services: makeTestServices(store: InMemoryKeyValueStore(["session": ["userID": "u2"]]))
        )
        let handler = RecordingNavigationHandler()
        let home = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "home.main"),
                navigation: handler,
                screen: .init("root")
            )
                as? HomeViewModel
        )

        try await home.handle(.onTappedProducts)
        try await home.handle(.onTappedProfile)
        try await home.handle(.onTappedSettings)

        #expect(
            handler.performed.map(\.command) == [
                .navigate(RouteRequest(id: "products.list")),
                .navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u2"])),
                .navigate(RouteRequest(id: "settings.main")),
            ]
        )
        #expect(handler.performed.allSatisfy { $0.screen == ScreenID("root") })
    }

    @Test("Wired by the coordinator, the root screen shows the tiles of the features the host says are loaded")
    func wiredTiles() async throws {
        let services = makeTestServices(present: ["Settings"])
        let coordinator = try HomeFeature().makeCoordinator(services: services)
        let home = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "home.main"),
                navigation: RecordingNavigationHandler(),
                screen: .init("root")
            )
                as? HomeViewModel
        )
        #expect(home.state.tiles == [.settings])

        await home.onAppear()
        services.optionalFeatures.update(present: ["Products", "Settings"])
        #expect(await eventually { home.state.tiles == [.products, .settings] })
        home.onDisappear()
    }

    @Test("plugin.json names this feature and depends on the features it opens, each optionally")
    func manifest() throws {
        let manifest = try JSONParser().parse(Data(contentsOf: PluginFiles.manifest))
        #expect(manifest["name"]?.stringValue == HomeFeature().name)
        #expect(manifest["version"]?.stringValue == "1.1.0")
        let dependencies = manifest["dependencies"]?.arrayValue ?? []
        #expect(dependencies.compactMap { $0["name"]?.stringValue } == HomeTile.allCases.map(\.feature))
        #expect(dependencies.allSatisfy { $0["optional"] == true })
        #expect(manifest["resources"] == [])
    }
}
