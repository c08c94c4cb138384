import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import UserProfileFeature

@MainActor
@Suite("The edit screen", .timeLimit(.minutes(1)))
struct EditProfileViewModelTests {
    private typealias Form = EditProfileViewModel.Form
    private typealias Intent = EditProfileViewModel.Intent

    private func makeViewModel(
        getProfile: GetUserProfileUseCaseMock = .returning(.ada),
        update: any UpdateUserProfileUseCaseProtocol,
        router: Router<ProfileRoute> = Router()
    ) -> EditProfileViewModel {
        EditProfileViewModel(
            userID: "u1",
            getUserProfileUseCase: getProfile,
            updateUserProfileUseCase: update,
            router: router,
            logger: .silent
        )
    }

    /// The real use case over a repository that records what it saves.
    private func realUpdate(_ repository: UserProfileRepositoryMock) -> UpdateUserProfileUseCase {
        UpdateUserProfileUseCase(repository: repository)
    }

    private func send(_ name: String, _ arguments: JSONObject = [:], to viewModel: EditProfileViewModel) async throws {
        try await viewModel.handle(try IntentMessage(name: name, arguments: arguments).decode(as: Intent.self))
    }

    @Test("Appearing shows loading while the profile is fetched, then a form holding it")
    func appearingFillsTheForm() async throws {
        let suspension = Suspension<UserProfile>()
        let viewModel = makeViewModel(getProfile: .suspended(suspension), update: realUpdate(.init()))

        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: .ada)
        await appearing.value
        #expect(viewModel.state == .loaded(Form(name: "Ada Lovelace", email: "ada.lovelace@example.org")))
    }

    @Test("A failed fetch shows an error, and retrying fills the form")
    func retryAfterFailure() async throws {
        let viewModel = makeViewModel(
            getProfile: GetUserProfileUseCaseMock { call in
                guard call > 0 else { throw TestError.unavailable }
                return .ada
            },
            update: realUpdate(.init())
        )
        await viewModel.onAppear()
        #expect(viewModel.state == .error("The profile could not be loaded. Please try again."))

        try await send("onTappedRetry", to: viewModel)
        #expect(viewModel.state.value?.name == "Ada Lovelace")
    }

    @Test("Changing the fields updates the form")
    func changingFields() async throws {
        let viewModel = makeViewModel(update: realUpdate(.init()))
        await viewModel.onAppear()

        try await send("onChangedName", ["name": "Augusta Ada King"], to: viewModel)
        try await send("onChangedEmail", ["email": "ada@example.org"], to: viewModel)

        #expect(viewModel.state == .loaded(Form(name: "Augusta Ada King", email: "ada@example.org")))
    }

    @Test("An edit or a save with no form to act on fails (the form did not load), changing nothing")
    func changesWithoutAForm() async throws {
        let viewModel = makeViewModel(update: realUpdate(.init()))
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await viewModel.onChangedName("Nobody") }
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await viewModel.onTappedSave() }
        #expect(viewModel.state == .idle)
    }

    @Test("An edit and a save sent while the form loads wait for it, then edit and save it")
    func changesWhileLoading() async throws {
        let suspension = Suspension<UserProfile>()
        let update = UpdateUserProfileUseCaseMock { update in
            UserProfile(
                id: update.userID,
                name: update.name,
                email: update.email,
                memberSince: UserProfile.ada.memberSince
            )
        }
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(getProfile: .suspended(suspension), update: update, router: router)
        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()

        let editing = Task {
            try await viewModel.onChangedName("Augusta Ada King")
            try await viewModel.onTappedSave()
        }
        await Task.yield()
        #expect(update.updates.isEmpty)
        suspension.resume(returning: .ada)
        await appearing.value
        try await editing.value

        #expect(update.updates.map(\.name) == ["Augusta Ada King"])
        #expect(router.commands == [.pop])
    }

    @Test("Saving a bad email address shows the use case's error on the email field and saves nothing")
    func invalidEmailIsAFieldError() async throws {
        let repository = UserProfileRepositoryMock([.ada])
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(update: realUpdate(repository), router: router)
        await viewModel.onAppear()

        try await send("onChangedEmail", ["email": "ada@"], to: viewModel)
        try await send("onTappedSave", to: viewModel)

        #expect(
            viewModel.state
                == .loaded(
                    Form(
                        name: "Ada Lovelace",
                        email: "ada@",
                        emailError: "Enter an email address like name@example.com."
                    )
                )
        )
        #expect(await repository.saved.isEmpty)
        #expect(router.commands.isEmpty, "a refused save stays on the form")
    }

    @Test(
        "Each validation error lands on its own field",
        arguments: [
            (ProfileValidationError.emptyName, ProfileField.name, "Enter a name."),
            (.nameTooLong(maximum: 80), .name, "Use at most 80 characters."),
            (.invalidEmail, .email, "Enter an email address like name@example.com."),
        ]
    )
    func validationErrorsLandOnTheirField(
        error: ProfileValidationError,
        field: ProfileField,
        message: String
    ) async throws {
        let viewModel = makeViewModel(update: UpdateUserProfileUseCaseMock { _ in throw error })
        await viewModel.onAppear()
        try await viewModel.onTappedSave()
        let form = viewModel.state.value
        #expect(form?.nameError == (field == .name ? message : nil))
        #expect(form?.emailError == (field == .email ? message : nil))
        #expect(form?.isSaving == false)
    }

    @Test("Editing a field clears its error")
    func editingClearsTheError() async throws {
        let viewModel = makeViewModel(
            update: UpdateUserProfileUseCaseMock { _ in throw ProfileValidationError.invalidEmail }
        )
        await viewModel.onAppear()
        try await viewModel.onTappedSave()
        #expect(viewModel.state.value?.emailError != nil)

        try await send("onChangedEmail", ["email": "ada@example.org"], to: viewModel)
        #expect(viewModel.state.value?.emailError == nil)
    }

    @Test("Saving shows the form as saving, then shows what was saved and pops back")
    func savingPopsBack() async throws {
        let suspension = Suspension<UserProfile>()
        let update = UpdateUserProfileUseCaseMock { _ in try await suspension.value() }
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(update: update, router: router)
        await viewModel.onAppear()
        try await viewModel.onChangedEmail("  ADA@Example.org ")

        let saving = Task { try await viewModel.onTappedSave() }
        await suspension.untilCalled()
        #expect(viewModel.state.value?.isSaving == true)
        #expect(router.commands.isEmpty)

        var saved = UserProfile.ada
        saved.email = "ada@example.org"
        suspension.resume(returning: saved)
        try await saving.value

        #expect(update.updates == [ProfileUpdate(userID: "u1", name: "Ada Lovelace", email: "  ADA@Example.org ")])
        #expect(viewModel.state == .loaded(Form(name: "Ada Lovelace", email: "ada@example.org")))
        #expect(router.commands == [.pop])
    }

    @Test("Tapping save twice while saving saves once; the second save fails, as it saved nothing")
    func doubleSave() async throws {
        let suspension = Suspension<UserProfile>()
        let update = UpdateUserProfileUseCaseMock { _ in try await suspension.value() }
        let viewModel = makeViewModel(update: update)
        await viewModel.onAppear()

        let saving = Task { try await viewModel.onTappedSave() }
        await suspension.untilCalled()
        await #expect(throws: EditProfileViewModel.SaveUnderWay.self) { try await viewModel.onTappedSave() }
        suspension.resume(returning: .ada)
        try await saving.value

        #expect(update.updates.count == 1)
    }

    @Test("A save that fails for another reason says so and stays on the form")
    func saveFailure() async throws {
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(
            update: UpdateUserProfileUseCaseMock { _ in throw TestError.unavailable },
            router: router
        )
        await viewModel.onAppear()
        try await viewModel.onTappedSave()

        #expect(viewModel.state.value?.saveError == "Your changes could not be saved. Please try again.")
        #expect(viewModel.state.value?.isSaving == false)
        #expect(router.commands.isEmpty)
    }

    @Test("Cancelling pops back without saving")
    func cancelling() async throws {
        let update = UpdateUserProfileUseCaseMock { _ in .ada }
        let router = Router<ProfileRoute>()
        let viewModel = makeViewModel(update: update, router: router)
        await viewModel.onAppear()

        try await send("onTappedCancel", to: viewModel)

        #expect(router.commands == [.pop])
        #expect(update.updates.isEmpty)
    }

    @Test("The form reads well as JSON, with null for fields without an error")
    func formJSON() async throws {
        let viewModel = makeViewModel(
            update: UpdateUserProfileUseCaseMock { _ in throw ProfileValidationError.invalidEmail }
        )
        await viewModel.onAppear()
        try await viewModel.onChangedEmail("ada@")
        try await viewModel.onTappedSave()

        let json = try JSONValueEncoder().encode(viewModel.state).serializedString()
        #expect(
            json
                == #"{"status":"loaded","value":{"name":"Ada Lovelace","email":"ada@","nameError":null,"#
                + #""emailError":"Enter an email address like name@example.com.","isSaving":false,"saveError":null}}"#
        )
    }
}
