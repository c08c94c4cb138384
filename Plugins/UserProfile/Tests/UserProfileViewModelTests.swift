import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import UserProfileFeature

@MainActor
@Suite("The profile screen", .timeLimit(.minutes(1)))
struct UserProfileViewModelTests {
    private let adaProfile = UserProfileViewModel.Profile(
        id: "u1",
        name: "Ada Lovelace",
        initials: "AL",
        email: "ada.lovelace@example.org",
        memberSince: "Member since June 1833"
    )

    private func makeViewModel(
        _ getProfile: GetUserProfileUseCaseMock,
        changes: ObserveUserProfileUseCaseMock = ObserveUserProfileUseCaseMock(),
        userID: String = "u1",
        router: Router<ProfileRoute> = Router()
    ) -> UserProfileViewModel {
        UserProfileViewModel(
            userID: userID,
            getUserProfileUseCase: getProfile,
            observeUserProfileUseCase: changes,
            router: router,
            logger: .silent
        )
    }

    @Test("Appearing shows loading while the profile is fetched, then the profile")
    func appearingLoadsTheProfile() async throws {
        let suspension = Suspension<UserProfile>()
        let getProfile = GetUserProfileUseCaseMock.suspended(suspension)
        let viewModel = makeViewModel(getProfile)
        #expect(viewModel.state == .idle)

        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: .ada)
        await appearing.value
        #expect(viewModel.state == .loaded(adaProfile))
        #expect(getProfile.requestedIDs == ["u1"])
    }

    @Test("An unknown user shows an error")
    func unknownUser() async throws {
        let viewModel = makeViewModel(.failing(UserProfileError.userNotFound(userID: "u9")), userID: "u9")
        await viewModel.onAppear()
        #expect(viewModel.state == .error("There is no user with this ID."))
    }

    @Test("A failed fetch shows an error; retrying shows loading again, then the profile")
    func retryAfterFailure() async throws {
        let suspension = Suspension<UserProfile>()
        let getProfile = GetUserProfileUseCaseMock { call in
            guard call > 0 else { throw TestError.unavailable }
            return try await suspension.value()
        }
        let viewModel = makeViewModel(getProfile)
        await viewModel.onAppear()
        #expect(viewModel.state == .error("The profile could not be loaded. Please try again."))

        let intent = try IntentMessage(name: "onTappedRetry").decode(as: UserProfileViewModel.Intent.self)
        let retrying = Task { try await viewModel.handle(intent) }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: .ada)
        try await retrying.value
        #expect(viewModel.state == .loaded(adaProfile))
    }

    @Test("Tapping edit opens the edit screen for this user")
    func tappingEditNavigates() async throws {
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(.returning(.ada), router: router)
        await viewModel.onAppear()

        try await viewModel.handle(
            try IntentMessage(name: "onTappedEditProfile").decode(as: UserProfileViewModel.Intent.self)
        )

        #expect(router.commands == [.navigate(RouteRequest(id: "profile.edit", parameters: ["userID": "u1"]))])
    }

    @Test("Tapping edit when the profile did not load fails, and goes nowhere")
    func tappingEditWithoutAProfile() async throws {
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(.failing(), router: router)
        await viewModel.onAppear()
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await viewModel.onTappedEditProfile() }
        #expect(router.commands.isEmpty)
    }

    @Test("Tapping edit while the profile loads waits for it, then opens the edit screen")
    func tappingEditWhileLoading() async throws {
        let suspension = Suspension<UserProfile>()
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(.suspended(suspension), router: router)
        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()

        let tapping = Task { try await viewModel.onTappedEditProfile() }
        await Task.yield()
        #expect(router.commands.isEmpty)
        suspension.resume(returning: .ada)
        await appearing.value
        try await tapping.value
        #expect(router.commands == [.navigate(RouteRequest(id: "profile.edit", parameters: ["userID": "u1"]))])
    }

    @Test("A profile saved elsewhere shows up while the screen is on the stack")
    func followsChanges() async throws {
        let changes = ObserveUserProfileUseCaseMock()
        let viewModel = makeViewModel(.returning(.ada), changes: changes)
        await viewModel.onAppear()

        var renamed = UserProfile.ada
        renamed.name = "Augusta Ada King"
        changes.send(renamed)

        #expect(await eventually { viewModel.state.value?.name == "Augusta Ada King" })
        #expect(viewModel.state.value?.initials == "AK")
    }

    @Test("Leaving the stack stops following the profile: later changes do not reach the state")
    func disappearingStopsFollowing() async throws {
        let changes = ObserveUserProfileUseCaseMock()
        let viewModel = makeViewModel(.returning(.ada), changes: changes)
        await viewModel.onAppear()
        #expect(!changes.isDropped, "an appeared screen follows its profile")

        viewModel.onDisappear()
        #expect(await eventually { changes.isDropped }, "the stream of changes was not ended")
        var renamed = UserProfile.ada
        renamed.name = "Augusta Ada King"
        changes.send(renamed)
        #expect(!(await eventually { viewModel.state.value?.name == "Augusta Ada King" }))
        #expect(viewModel.state.value?.name == UserProfile.ada.name)
    }

    @Test(
        "Initials take the first letters of the first and last words",
        arguments: [
            ("Ada Lovelace", "AL"),
            ("Augusta Ada King", "AK"),
            ("plato", "P"),
            ("  Grace   Hopper ", "GH"),
        ]
    )
    func initials(name: String, expected: String) async {
        var profile = UserProfile.ada
        profile.name = name
        let viewModel = makeViewModel(.returning(profile))
        await viewModel.onAppear()
        #expect(viewModel.state.value?.initials == expected)
    }

    @Test("The loaded state reads well as JSON")
    func loadedStateJSON() async throws {
        let viewModel = makeViewModel(.returning(.ada))
        await viewModel.onAppear()
        let json = try JSONValueEncoder().encode(viewModel.state).serializedString()
        #expect(
            json
                == #"{"status":"loaded","value":{"id":"u1","name":"Ada Lovelace","initials":"AL","#
                + #""email":"ada.lovelace@example.org","memberSince":"Member since June 1833"}}"#
        )
    }
}
