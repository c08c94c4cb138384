import NavHostJSON
import NavHostKit
import Testing

@testable import HomeFeature

@MainActor
@Suite("The root screen", .timeLimit(.minutes(1)))
struct HomeViewModelTests {
    private func makeViewModel(
        _ getCurrentUserID: GetCurrentUserIDUseCaseMock = .returning("u1"),
        router: Router<HomeRoute>
    ) -> HomeViewModel {
        HomeViewModel(getCurrentUserIDUseCase: getCurrentUserID, router: router, logger: .silent)
    }

    private func send(_ name: String, to viewModel: HomeViewModel) async throws {
        await viewModel.handle(try IntentMessage(name: name).decode(as: HomeViewModel.Intent.self))
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
    func tappingProfileWaitsForTheSession() async {
        let suspension = Suspension<String>()
        let router = Router<HomeRoute>()
        let viewModel = makeViewModel(GetCurrentUserIDUseCaseMock { try await suspension.value() }, router: router)

        let tapping = Task { await viewModel.onTappedProfile() }
        await suspension.untilCalled()
        #expect(router.commands.isEmpty)

        suspension.resume(returning: "u2")
        await tapping.value
        #expect(router.commands == [.navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))])
    }

    @Test("Tapping profile when the session cannot be read stays on the root screen")
    func tappingProfileWithoutASession() async {
        let router = Router<HomeRoute>()
        await makeViewModel(.failing(), router: router).onTappedProfile()
        #expect(router.commands.isEmpty)
    }

    @Test("Tapping settings opens the settings")
    func tappingSettings() async throws {
        let router = Router<HomeRoute>()
        try await send("onTappedSettings", to: makeViewModel(router: router))
        #expect(router.commands == [.navigate(RouteRequest(id: "settings.main"))])
    }

    @Test("Tapping products and settings does not read the session")
    func navigationWithoutTheSession() async {
        let getCurrentUserID = GetCurrentUserIDUseCaseMock.returning("u1")
        let viewModel = makeViewModel(getCurrentUserID, router: Router())
        viewModel.onTappedProducts()
        viewModel.onTappedSettings()
        #expect(getCurrentUserID.callCount == 0)
    }

    @Test("It has no state: front ends see an empty object")
    func stateless() throws {
        let viewModel = makeViewModel(router: Router())
        #expect(try JSONValueEncoder().encode(viewModel.state).serializedString() == "{}")
    }
}
