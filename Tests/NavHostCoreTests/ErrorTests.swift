import NavHostCore
import NavHostKit
import NavHostTesting
import Testing

@MainActor
@Suite("Refused requests: typed errors, nothing changed")
struct ErrorTests {
    func makeHost() async throws -> FeatureTestHost {
        let host = try FeatureTestHost(features: [CatalogFeature(), ProfileFeature()], root: "catalog.list")
        try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        try await host.settle()
        _ = host.takeEvents()
        return host
    }

    /// Runs `request`, expects a refusal with `code`, and checks that the session did not change.
    func expectRefusal(
        _ code: NavigationError.Code,
        on host: FeatureTestHost,
        _ request: () async throws -> Void
    ) async throws {
        let before = host.session.snapshot
        let error = await #expect(throws: NavigationError.self) { try await request() }
        #expect(error?.code == code)
        try await host.settle()
        #expect(host.session.snapshot == before)
        #expect(host.takeEvents().isEmpty)
    }

    @Test("A push past the stack depth limit is StackTooDeep, and so is a replace with more screens than it")
    func stackTooDeep() async throws {
        let host = try await makeHost()
        let limit = SessionOptions().maxStackDepth
        for _ in 2..<limit { try host.navigate(to: "catalog.detail", ["itemID": "i1"]) }
        try await host.settle()
        _ = host.takeEvents()
        try await expectRefusal(.stackTooDeep, on: host) { try host.navigate(to: "catalog.detail", ["itemID": "i2"]) }
        let tooMany = Array(repeating: RouteRequest(id: "catalog.list"), count: limit + 1)
        try await expectRefusal(.stackTooDeep, on: host) { try host.session.replace(with: tooMany) }
    }

    @Test("An unknown route is RouteNotFound")
    func unknownRoute() async throws {
        let host = try await makeHost()
        try await expectRefusal(.routeNotFound, on: host) { try host.navigate(to: "catalog.nowhere") }
        try await expectRefusal(.routeNotFound, on: host) { try host.navigate(to: "elsewhere.main") }
    }

    @Test("Parameters that do not fit the route are InvalidRouteParameters")
    func badRouteParameters() async throws {
        let host = try await makeHost()
        try await expectRefusal(.invalidRouteParameters, on: host) { try host.navigate(to: "catalog.detail") }
        try await expectRefusal(.invalidRouteParameters, on: host) {
            try host.navigate(to: "catalog.detail", ["itemID": 42])
        }
    }

    @Test("An unknown screen ID is ScreenNotFound")
    func unknownScreen() async throws {
        let host = try await makeHost()
        try await expectRefusal(.screenNotFound, on: host) { try await host.send("onTappedBack", to: ScreenID("s99")) }
    }

    @Test("An intent the screen does not have is IntentNotFound")
    func unknownIntent() async throws {
        let host = try await makeHost()
        try await expectRefusal(.intentNotFound, on: host) { try await host.send("onTappedNothing") }
        try await expectRefusal(.intentNotFound, on: host) { try await host.send("onTappedRetry") }
    }

    @Test("Arguments that do not fit the intent are InvalidIntentArguments")
    func badIntentArguments() async throws {
        let host = try await makeHost()
        try await expectRefusal(.invalidIntentArguments, on: host) { try await host.send("onTappedOwner") }
        try await expectRefusal(.invalidIntentArguments, on: host) {
            try await host.send("onTappedOwner", ["userID": ["nested": true]])
        }
    }

    @Test("A route a feature lists but cannot build (no case of that name) is ViewModelFailed, not RouteNotFound")
    func listedRouteWithoutCase() async throws {
        let host = try FeatureTestHost(features: [NoteFeature(), MisspeltNoteFeature()], root: "note.editor")
        try await host.settle()
        _ = host.takeEvents()
        try await expectRefusal(.viewModelFailed, on: host) { _ = try host.navigate(to: "note.editors") }
        try await expectRefusal(.routeNotFound, on: host) { _ = try host.navigate(to: "note.nowhere") }
    }

    @Test("The routes a feature lists but cannot build are found before any navigation; parameters needed are not")
    @MainActor
    func unknownRoutesFoundBeforeNavigation() throws {
        let catalog = try FeatureCatalog.holding([NoteFeature(), MisspeltNoteFeature(), CatalogFeature()])
        let misspelt = catalog.unknownRoutes(of: "MisspeltNote")
        #expect(misspelt.map(\.route) == ["note.editors"])
        #expect(misspelt.first?.description.hasPrefix("MisspeltNote lists note.editors among its screens") == true)
        #expect(catalog.unknownRoutes(of: "Note").isEmpty)
        // catalog.detail needs an itemID: asked for without one, its coordinator knows it all the same.
        #expect(catalog.routes.contains { $0.screen.route == "catalog.detail" })
        #expect(catalog.unknownRoutes(of: "Catalog").isEmpty)
        #expect(catalog.unknownRoutes(of: "Nowhere").isEmpty)
    }

    @Test("A ViewModel that throws is IntentFailed")
    func throwingIntent() async throws {
        let host = try await makeHost()
        try await expectRefusal(.intentFailed, on: host) { try await host.send("onTappedBroken") }
    }

    @Test("An intent to a screen that was popped is ScreenNotFound")
    func intentToPoppedScreen() async throws {
        let host = try await makeHost()
        let popped = host.top.id
        try host.session.pop()
        _ = host.takeEvents()
        try await expectRefusal(.screenNotFound, on: host) { try await host.send("onTappedBack", to: popped) }
    }

    @Test("An unknown session is SessionNotFound")
    func unknownSession() throws {
        let registry = SessionRegistry(catalog: FeatureCatalog(), logger: .init(label: "test"))
        let error = #expect(throws: NavigationError.self) { try registry.session("nope") }
        #expect(error?.code == .sessionNotFound)
        #expect(error?.parameters == ["session": "nope"])
    }

    @Test("Error codes carry their Varlink names and facts a client can act on")
    func errorShape() async throws {
        let host = try await makeHost()
        let error = #expect(throws: NavigationError.self) { try host.navigate(to: "catalog.nowhere") }
        #expect(error?.code.name == "RouteNotFound")
        #expect(error?.parameters == ["route": "catalog.nowhere"])
    }
}

@MainActor
@Suite("The feature catalog")
struct FeatureCatalogTests {
    let services = HostServices.forTests

    @Test("A feature offering a route another feature owns is refused whole")
    func routeConflict() throws {
        let catalog = FeatureCatalog()
        try catalog.register(ProfileFeature(), services: services)
        let conflicting = ConflictingFeature()
        #expect(throws: FeatureCatalog.RegistrationError.routeConflict(route: "profile.user", owner: "Profile")) {
            try catalog.register(conflicting, services: services)
        }
        #expect(catalog.featureNames == ["Profile"])
        #expect(catalog.owner(ofRoute: "other.main") == nil)
    }

    @Test("A second feature with the same name is refused")
    func duplicateName() throws {
        let catalog = FeatureCatalog()
        try catalog.register(ProfileFeature(), services: services)
        #expect(throws: FeatureCatalog.RegistrationError.duplicateFeature("Profile")) {
            try catalog.register(ProfileFeature(), services: services)
        }
    }

    @Test("A composition root that throws is reported and leaves no routes behind")
    func coordinatorThrows() throws {
        let catalog = FeatureCatalog()
        #expect(throws: FeatureCatalog.RegistrationError.self) {
            try catalog.register(BrokenFeature(), services: services)
        }
        #expect(catalog.routes.isEmpty)
    }

    @Test("Unregistering a feature removes its routes")
    func unregister() throws {
        let catalog = FeatureCatalog()
        try catalog.register(ProfileFeature(), services: services)
        #expect(catalog.unregister("Profile"))
        #expect(catalog.owner(ofRoute: "profile.user") == nil)
        #expect(!catalog.unregister("Profile"))
    }
}

final class ConflictingFeature: FeatureModule {
    let name = "Other"
    let screens = [
        ScreenDescriptor(route: "other.main"),
        ScreenDescriptor(route: "profile.user"),
    ]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { ProfileCoordinator() }
}
