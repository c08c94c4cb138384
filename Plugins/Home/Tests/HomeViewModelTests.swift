import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import HomeFeature

@MainActor
@Suite("The root screen", .timeLimit(.minutes(1)))
struct HomeViewModelTests {
    private func makeViewModel(
        _ getCurrentUserID: GetCurrentUserIDUseCaseMock = .returning("u1"),
        features: FeatureAvailabilityRepositoryFake = FeatureAvailabilityRepositoryFake(),
        router: Router<HomeRoute>
    ) -> HomeViewModel {
        HomeViewModel(
            getCurrentUserIDUseCase: getCurrentUserID,
            observeHomeTilesUseCase: ObserveHomeTilesUseCase(repository: features),
            router: router,
            logger: .silent
        )
    }

    private func send(_ name: String, to viewModel: HomeViewModel) async throws {
        try await viewModel.handle(try IntentMessage(name: name).decode(as: HomeViewModel.Intent.self))
    }

    @Test("Tapping products opens the catalog")
    func tappingProducts() async throws {
        let router = Router<HomeRoute>()
        try await send("onTappedProducts", to: makeViewModel(router: router))
        #expect(router.commands == [.navigate(RouteRequest(id: "products.list"))])
    }

    @Test("Tapping profile opens the signed-in user's profile")
    func tappingProfile() async throws {
        let router = Router<HomeRoute>()
        try await send("onTappedProfile", to: makeViewModel(.returning("u1"), router: router))
        #expect(router.commands == [.navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u1"]))])
    }

    @Test("Tapping profile navigates only once the session has been read")
    func tappingProfileWaitsForTheSession() async throws {
        let suspension = Suspension<String>()
        let router = Router<HomeRoute>()
        let viewModel = makeViewModel(GetCurrentUserIDUseCaseMock.suspended(suspension), router: router)

        let tapping = Task { try await viewModel.onTappedProfile() }
        await suspension.untilCalled()
        #expect(router.commands.isEmpty)

        suspension.resume(returning: "u2")
        try await tapping.value
        #expect(router.commands == [.navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))])
    }

    @Test("Tapping profile when the session cannot be read fails, and stays on the root screen")
    func tappingProfileWithoutASession() async throws {
        let router = Router<HomeRoute>()
        let viewModel = makeViewModel(.failing(), router: router)
        await #expect(throws: TestError.self) { try await viewModel.onTappedProfile() }
        #expect(router.commands.isEmpty)
    }

    @Test("Tapping settings opens the settings")
    func tappingSettings() async throws {
        let router = Router<HomeRoute>()
        try await send("onTappedSettings", to: makeViewModel(router: router))
        #expect(router.commands == [.navigate(RouteRequest(id: "settings.main"))])
    }

    @Test("Tapping products and settings does not read the session")
    func navigationWithoutTheSession() throws {
        let getCurrentUserID = GetCurrentUserIDUseCaseMock.returning("u1")
        let viewModel = makeViewModel(getCurrentUserID, router: Router())
        try viewModel.onTappedProducts()
        try viewModel.onTappedSettings()
        #expect(getCurrentUserID.callCount == 0)
    }

    // MARK: Tiles

    @Test("Its state shows a tile for each loaded feature it opens, in a fixed order")
    func tilesOfTheLoadedFeatures() throws {
        let all = makeViewModel(router: Router())
        #expect(
            try JSONValueEncoder().encode(all.state).serializedString()
                == #"{"tiles":["products","profile","settings"]}"#
        )
        let some = makeViewModel(
            features: FeatureAvailabilityRepositoryFake(present: ["Settings", "UserProfile"]),
            router: Router()
        )
        #expect(some.state.tiles == [.profile, .settings])
        let none = makeViewModel(features: FeatureAvailabilityRepositoryFake(present: []), router: Router())
        #expect(try JSONValueEncoder().encode(none.state).serializedString() == #"{"tiles":[]}"#)
    }

    @Test("While on the stack, its tiles follow features as they leave and come back")
    func tilesFollowTheFeatures() async {
        let features = FeatureAvailabilityRepositoryFake()
        let viewModel = makeViewModel(features: features, router: Router())
        await viewModel.onAppear()

        features.setPresent(["Products", "UserProfile"])
        #expect(await eventually { viewModel.state.tiles == [.products, .profile] })
        features.setPresent([])
        #expect(await eventually { viewModel.state.tiles == [] })
        features.setPresent(["Settings"])
        #expect(await eventually { viewModel.state.tiles == [.settings] })
    }

    @Test("Off the stack, it stops following the features")
    func leavingStopsFollowing() async {
        let features = FeatureAvailabilityRepositoryFake()
        let viewModel = makeViewModel(features: features, router: Router())
        await viewModel.onAppear()
        viewModel.onDisappear()

        features.setPresent(["Settings"])
        #expect(await !eventually { viewModel.state.tiles == [.settings] })
        #expect(viewModel.state.tiles == [.products, .profile, .settings])
    }

    @Test("A tap on a tile that is not shown is refused with the feature's name, and navigates nowhere")
    func tapOnAMissingTile() async throws {
        let router = Router<HomeRoute>()
        let getCurrentUserID = GetCurrentUserIDUseCaseMock.returning("u1")
        let viewModel = makeViewModel(
            getCurrentUserID,
            features: FeatureAvailabilityRepositoryFake(present: ["Products"]),
            router: router
        )
        #expect(throws: HomeError.featureUnavailable("Settings")) { try viewModel.onTappedSettings() }
        await #expect(throws: HomeError.featureUnavailable("UserProfile")) { try await viewModel.onTappedProfile() }
        #expect(router.commands.isEmpty)
        #expect(getCurrentUserID.callCount == 0)
        try viewModel.onTappedProducts()
        #expect(router.commands == [.navigate(RouteRequest(id: "products.list"))])
    }
}
