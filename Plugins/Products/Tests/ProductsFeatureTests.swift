import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import ProductsFeature

@MainActor
@Suite("The Products feature module")
struct ProductsFeatureTests {
    /// One value of every route case. The `switch` stops compiling when a case is added, as a reminder to list it.
    private static let everyRoute: [ProductsRoute] = {
        let routes: [ProductsRoute] = [.list, .detail(productID: "p1")]
        for route in routes {
            switch route {
            case .list, .detail: break
            }
        }
        return routes
    }()

    @Test("Its screens list every route, with the route's parameters")
    func screensListEveryRoute() throws {
        let feature = ProductsFeature()
        let requests = try Self.everyRoute.map { try $0.request }
        #expect(feature.screens.map(\.route) == requests.map(\.id))
        #expect(feature.screens.map(\.parameters) == requests.map { Array($0.parameters.keys) })
        #expect(feature.screens.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("Its screens name the intents of their ViewModels")
    func screensNameTheirIntents() {
        let intents = Dictionary(uniqueKeysWithValues: ProductsFeature().screens.map { ($0.route, $0.intents) })
        #expect(intents["products.list"] == ProductsViewModel.Intent.names)
        #expect(intents["products.detail"] == ProductDetailViewModel.Intent.names)
    }

    @Test("Every intent name of the catalog screen decodes from its wire form")
    func catalogIntentsDecode() throws {
        let messages = [
            IntentMessage(name: "onTappedRetry"),
            IntentMessage(name: "onChangedFilter", arguments: ["text": "engine"]),
            IntentMessage(name: "onTappedProduct", arguments: ["productID": "p1"]),
        ]
        #expect(messages.map(\.name) == ProductsViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: ProductsViewModel.Intent.self) }
        }
    }

    @Test("Every intent name of the product screen decodes from its wire form")
    func detailIntentsDecode() throws {
        let messages = [IntentMessage(name: "onTappedRetry"), IntentMessage(name: "onTappedSeller")]
        #expect(messages.map(\.name) == ProductDetailViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: ProductDetailViewModel.Intent.self) }
        }
    }

    @Test("An intent with a missing argument is refused with the reason")
    func missingArgument() {
        #expect(throws: IntentError.self) {
            try IntentMessage(name: "onChangedFilter").decode(as: ProductsViewModel.Intent.self)
        }
    }

    @Test("The coordinator builds each route's ViewModel")
    func coordinatorBuildsViewModels() throws {
        let coordinator = try ProductsFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        let list = try coordinator.makeViewModel(
            for: RouteRequest(id: "products.list"),
            navigation: handler,
            screen: .init("s1")
        )
        let detail = try coordinator.makeViewModel(
            for: RouteRequest(id: "products.detail", parameters: ["productID": "p1"]),
            navigation: handler,
            screen: ScreenID("s2")
        )
        #expect(list is ProductsViewModel)
        #expect(detail is ProductDetailViewModel)
    }

    @Test("The coordinator refuses a route it does not offer, and a route without its parameters")
    func coordinatorRefusesBadRoutes() throws {
        let coordinator = try ProductsFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        #expect(throws: RouteError.unknownRoute("products.cart")) {
            try coordinator.makeViewModel(
                for: RouteRequest(id: "products.cart"),
                navigation: handler,
                screen: .init("s1")
            )
        }
        #expect {
            try coordinator.makeViewModel(
                for: RouteRequest(id: "products.detail"),
                navigation: handler,
                screen: .init("s1")
            )
        } throws: { error in
            guard case RouteError.invalidParameters(route: "products.detail", _) = error else { return false }
            return true
        }
    }

    @Test("Wired by the coordinator, the catalog loads the shipped file and navigates through the host")
    func wiredCatalog() async throws {
        let coordinator = try ProductsFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        let viewModel = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "products.list"),
                navigation: handler,
                screen: .init("s1")
            )
                as? ProductsViewModel
        )
        await viewModel.onAppear()
        #expect(viewModel.state.value?.totalCount == 6, "seven products in the file, one withdrawn")

        await viewModel.handle(.onTappedProduct(productID: "p4"))
        #expect(
            handler.performed.map(\.command) == [
                .navigate(RouteRequest(id: "products.detail", parameters: ["productID": "p4"]))
            ]
        )
        #expect(handler.performed.map(\.screen) == [ScreenID("s1")])
    }

    @Test("Wired to a folder without the catalog, the catalog screen shows an error instead of failing to load")
    func wiredWithoutResources() async throws {
        let directory = try TemporaryDirectory()
        let coordinator = try ProductsFeature().makeCoordinator(
            services: makeTestServices(resourceDirectory: directory.path)
        )
        let viewModel = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "products.list"),
                navigation: RecordingNavigationHandler(),
                screen: .init("s1")
            ) as? ProductsViewModel
        )
        await viewModel.onAppear()
        #expect(viewModel.state == .error("The catalog could not be loaded. Please try again."))
    }

    @Test("plugin.json names this feature and lists only files the plugin ships")
    func manifest() throws {
        let manifest = try JSONParser().parse(Data(contentsOf: PluginFiles.manifest))
        #expect(manifest["name"]?.stringValue == ProductsFeature().name)
        #expect(manifest["version"]?.stringValue == "1.0.0")
        #expect(manifest["dependencies"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["UserProfile"])
        let resources = manifest["resources"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        #expect(resources == ["products.json"])
        for resource in resources {
            let path = PluginFiles.resources.appendingPathComponent(resource).path
            #expect(FileManager.default.fileExists(atPath: path), "\(resource) is shipped")
        }
    }
}
