import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import SettingsFeature

@MainActor
@Suite("The settings screen", .timeLimit(.minutes(1)))
struct SettingsViewModelTests {
    private typealias Intent = SettingsViewModel.Intent

    private func makeViewModel(
        get: GetPreferencesUseCaseMock = .returning(.defaults),
        change: ChangePreferenceUseCaseMock = ChangePreferenceUseCaseMock(),
        reset: ResetPreferencesUseCaseMock = ResetPreferencesUseCaseMock()
    ) -> SettingsViewModel {
        SettingsViewModel(
            getPreferencesUseCase: get,
            changePreferenceUseCase: change,
            resetPreferencesUseCase: reset,
            logger: .silent
        )
    }

    private func send(_ name: String, _ arguments: JSONObject = [:], to viewModel: SettingsViewModel) async throws {
        try await viewModel.handle(try IntentMessage(name: name, arguments: arguments).decode(as: Intent.self))
    }

    /// The preferences the screen shows.
    private func shown(_ viewModel: SettingsViewModel) -> Preferences? {
        viewModel.state.value.map {
            Preferences(theme: $0.theme, notificationsEnabled: $0.notificationsEnabled, language: $0.language)
        }
    }

    @Test("Appearing shows loading while the preferences are read, then the stored preferences")
    func appearingLoadsThePreferences() async throws {
        let suspension = Suspension<Preferences>()
        let viewModel = makeViewModel(get: .suspended(suspension))
        #expect(viewModel.state == .idle)

        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: .customized)
        await appearing.value
        #expect(shown(viewModel) == .customized)
        #expect(viewModel.state.value?.saveError == nil)
    }

    @Test("A failed read shows an error; retrying shows loading again, then the preferences")
    func retryAfterFailure() async throws {
        let suspension = Suspension<Preferences>()
        let viewModel = makeViewModel(
            get: GetPreferencesUseCaseMock { call in
                guard call > 0 else { throw TestError.unavailable }
                return try await suspension.value()
            }
        )
        await viewModel.onAppear()
        #expect(viewModel.state == .error("Your settings could not be loaded. Please try again."))

        let retrying = Task { try await send("onTappedRetry", to: viewModel) }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)
        suspension.resume(returning: .customized)
        try await retrying.value
        #expect(shown(viewModel) == .customized)
    }

    @Test("A change sent while the preferences load waits for them, then is made and shown")
    func changeSentWhileLoadingIsMade() async throws {
        let suspension = Suspension<Preferences>()
        let change = ChangePreferenceUseCaseMock(storing: .customized)
        let viewModel = makeViewModel(get: .suspended(suspension), change: change)
        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()

        let changing = Task { try await viewModel.onChangedLanguage(.german) }
        await Task.yield()
        #expect(change.changes.isEmpty, "it waits for the load")
        suspension.resume(returning: .customized)
        await appearing.value
        try await changing.value

        #expect(change.changes == [.language(.german)])
        #expect(viewModel.state.value?.language == .german)
    }

    @Test("After a failed load a change is made all the same; one that fails too fails the intent")
    func changeAfterAFailedLoad() async throws {
        let change = ChangePreferenceUseCaseMock(storing: .customized)
        let viewModel = makeViewModel(get: .failing(), change: change)
        await viewModel.onAppear()

        try await viewModel.onChangedTheme(.light)
        #expect(viewModel.state.value?.theme == .light)

        let failing = makeViewModel(
            get: .failing(),
            change: ChangePreferenceUseCaseMock { _ in throw TestError.unavailable }
        )
        await failing.onAppear()
        await #expect(throws: TestError.self) { try await failing.onChangedTheme(.light) }
        #expect(failing.state == .error("Your settings could not be loaded. Please try again."))
    }

    @Test("Each change shows at once and is made to the stored preferences, one preference at a time")
    func changesAreSaved() async throws {
        let change = ChangePreferenceUseCaseMock()
        let viewModel = makeViewModel(change: change)
        await viewModel.onAppear()

        try await send("onChangedTheme", ["theme": "dark"], to: viewModel)
        try await send("onChangedNotificationsEnabled", ["isEnabled": false], to: viewModel)
        try await send("onChangedLanguage", ["language": "fr"], to: viewModel)

        #expect(shown(viewModel) == .customized)
        #expect(change.changes == [.theme(.dark), .notificationsEnabled(false), .language(.french)])
    }

    @Test("After a change, the screen shows the preferences as stored, with what another screen changed meanwhile")
    func showsWhatIsStored() async throws {
        let change = ChangePreferenceUseCaseMock()
        let viewModel = makeViewModel(change: change)
        await viewModel.onAppear()
        change.changeElsewhere(.theme(.dark))

        try await viewModel.onChangedLanguage(.french)

        #expect(shown(viewModel) == Preferences(theme: .dark, notificationsEnabled: true, language: .french))
    }

    @Test("A change shows before its save has finished")
    func changeShowsBeforeTheSaveFinishes() async throws {
        let suspension = Suspension<Void>()
        let viewModel = makeViewModel(change: ChangePreferenceUseCaseMock { _ in try await suspension.value() })
        await viewModel.onAppear()

        let changing = Task { try await viewModel.onChangedTheme(.light) }
        await suspension.untilCalled()
        #expect(viewModel.state.value?.theme == .light)
        suspension.resume(returning: ())
        try await changing.value
        #expect(viewModel.state.value?.theme == .light)
    }

    @Test("A theme or language the screen does not offer is refused before it reaches the ViewModel")
    func unknownChoicesAreRefused() {
        #expect(throws: IntentError.self) {
            try IntentMessage(name: "onChangedTheme", arguments: ["theme": "sepia"]).decode(as: Intent.self)
        }
        #expect(throws: IntentError.self) {
            try IntentMessage(name: "onChangedLanguage", arguments: ["language": "tlh"]).decode(as: Intent.self)
        }
    }

    @Test("A change that cannot be saved goes back to the stored preferences and says so")
    func failedSaveGoesBack() async throws {
        let viewModel = makeViewModel(
            get: .returning(.customized),
            change: ChangePreferenceUseCaseMock(storing: .customized) { _ in throw TestError.unavailable }
        )
        await viewModel.onAppear()

        try await viewModel.onChangedTheme(.light)

        #expect(shown(viewModel) == .customized)
        #expect(viewModel.state.value?.saveError == "Your change could not be saved. Please try again.")
    }

    @Test("The next successful change clears the save error")
    func successClearsTheError() async throws {
        let viewModel = makeViewModel(
            change: ChangePreferenceUseCaseMock { change in
                if change == .theme(.light) { throw TestError.unavailable }
            }
        )
        await viewModel.onAppear()
        try await viewModel.onChangedTheme(.light)
        #expect(viewModel.state.value?.saveError != nil)

        try await viewModel.onChangedTheme(.dark)
        #expect(viewModel.state.value?.theme == .dark)
        #expect(viewModel.state.value?.saveError == nil)
    }

    @Test("A failed save shows what is stored, with a later change made while it was under way")
    func failedSaveKeepsALaterChange() async throws {
        let first = Suspension<Void>()
        let viewModel = makeViewModel(
            change: ChangePreferenceUseCaseMock { change in
                if change == .theme(.light) { try await first.value() }
            }
        )
        await viewModel.onAppear()

        let changingTheme = Task { try await viewModel.onChangedTheme(.light) }
        await first.untilCalled()
        try await viewModel.onChangedLanguage(.german)
        first.resume(throwing: TestError.unavailable)
        try await changingTheme.value

        #expect(shown(viewModel) == Preferences(theme: .system, notificationsEnabled: true, language: .german))
        #expect(viewModel.state.value?.saveError == "Your change could not be saved. Please try again.")
    }

    @Test("Resetting puts every preference back to its default")
    func resetting() async throws {
        let viewModel = makeViewModel(get: .returning(.customized))
        await viewModel.onAppear()

        try await send("onTappedResetToDefaults", to: viewModel)

        #expect(shown(viewModel) == .defaults)
    }

    @Test("A reset that fails keeps the stored preferences and says so")
    func failedReset() async throws {
        let viewModel = makeViewModel(
            get: .returning(.customized),
            reset: ResetPreferencesUseCaseMock { throw TestError.unavailable }
        )
        await viewModel.onAppear()
        try await viewModel.onTappedResetToDefaults()

        #expect(shown(viewModel) == .customized)
        #expect(viewModel.state.value?.saveError == "Your change could not be saved. Please try again.")
    }

    @Test("A change before the screen has appeared is made, and shows the preferences it stored")
    func changeBeforeAppearing() async throws {
        let change = ChangePreferenceUseCaseMock()
        let viewModel = makeViewModel(change: change)
        try await viewModel.onChangedTheme(.dark)
        #expect(change.changes == [.theme(.dark)])
        #expect(viewModel.state.value?.theme == .dark)
    }

    @Test("Changes sent at once to one screen are stored in the order they were made, and it shows the last")
    func concurrentChangesKeepTheirOrder() async throws {
        // The real use case, repository and data source over an actor store, as the daemon runs them.
        let store = InMemoryKeyValueStore()
        let repository = PreferencesRepositoryImpl(
            dataSource: PreferencesStoreDataSource(store: store),
            logger: .silent
        )
        let viewModel = SettingsViewModel(
            getPreferencesUseCase: GetPreferencesUseCase(repository: repository),
            changePreferenceUseCase: ChangePreferenceUseCase(repository: repository),
            resetPreferencesUseCase: ResetPreferencesUseCase(repository: repository),
            logger: .silent
        )
        await viewModel.onAppear()
        for round in 0..<200 {
            let languages: [Language] = round.isMultiple(of: 2) ? [.spanish, .french] : [.french, .spanish]
            let changes = languages.map { language in Task { try await viewModel.onChangedLanguage(language) } }
            for change in changes { try await change.value }
            let stored = try await repository.fetchPreferences()?.language
            #expect(stored == languages[1], "round \(round): the later change is stored")
            #expect(viewModel.state.value?.language == languages[1], "round \(round): and shown")
        }
    }

    @Test("The loaded state reads well as JSON, with the choices to offer")
    func loadedStateJSON() async throws {
        let viewModel = makeViewModel(get: .returning(.customized))
        await viewModel.onAppear()
        let json = try JSONValueEncoder().encode(viewModel.state).serializedString()
        #expect(
            json
                == #"{"status":"loaded","value":{"theme":"dark","notificationsEnabled":false,"language":"fr","#
                + #""themes":["light","dark","system"],"languages":[{"code":"en","name":"English"},"#
                + #"{"code":"fr","name":"Français"},{"code":"de","name":"Deutsch"},{"code":"es","name":"Español"},"#
                + #"{"code":"ja","name":"日本語"}],"saveError":null}}"#
        )
    }
}
