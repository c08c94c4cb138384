import NavHostKit
import Observation

/// The settings screen, `settings.main`: theme, notifications and language.
///
/// Each change shows at once, then is made to the stored preferences through ``ChangePreferenceUseCase``, and the
/// screen shows them as stored, with the changes other screens made meanwhile. If the save fails, the screen goes
/// back to what is stored and says so in `saveError`.
///
/// Its state on the wire:
///
/// ```json
/// {"status":"loaded","value":{"theme":"dark","notificationsEnabled":true,"language":"fr",
///  "themes":["light","dark","system"],"languages":[{"code":"en","name":"English"},{"code":"fr","name":"Français"},…],
///  "saveError":null}}
/// ```
@MainActor
@Observable
final class SettingsViewModel: ViewModel {

    /// What the user can do on the settings screen.
    enum Intent: ViewModelIntent {
        /// Picks a theme: `{"theme":"dark"}`; one of `light`, `dark`, `system`.
        case onChangedTheme(theme: Theme)
        /// Turns notifications on or off: `{"isEnabled":false}`.
        case onChangedNotificationsEnabled(isEnabled: Bool)
        /// Picks a language by code: `{"language":"fr"}`; one of the codes in `languages`.
        case onChangedLanguage(language: Language)
        /// Puts every preference back to its default.
        case onTappedResetToDefaults
        /// Loads the preferences again after a failure.
        case onTappedRetry

        static let names = [
            "onChangedTheme", "onChangedNotificationsEnabled", "onChangedLanguage", "onTappedResetToDefaults",
            "onTappedRetry",
        ]
    }

    /// The preferences as front ends show them, with the choices they can offer.
    struct Content: Encodable, Equatable, Sendable {
        var theme: Theme
        var notificationsEnabled: Bool
        /// The language's code, like `fr`.
        var language: Language
        /// Every theme, in the order to offer them.
        var themes: [Theme]
        /// Every language, each named in itself.
        var languages: [LanguageOption]
        /// Why the last change could not be saved; `null` when it was.
        var saveError: String?

        private enum CodingKeys: String, CodingKey {
            case theme, notificationsEnabled, language, themes, languages, saveError
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(theme, forKey: .theme)
            try container.encode(notificationsEnabled, forKey: .notificationsEnabled)
            try container.encode(language, forKey: .language)
            try container.encode(themes, forKey: .themes)
            try container.encode(languages, forKey: .languages)
            try container.encode(saveError, forKey: .saveError)
        }
    }

    /// A language a front end can offer: `{"code":"de","name":"Deutsch"}`.
    struct LanguageOption: Encodable, Equatable, Sendable {
        var code: String
        var name: String
    }

    // MARK: Private Properties

    /// What the store holds, to go back to when a save fails.
    @ObservationIgnored private var saved = Preferences.defaults
    /// Holds a change sent while the preferences load until they have.
    @ObservationIgnored private let loadCompletion = LoadCompletion()

    private let getPreferencesUseCase: any GetPreferencesUseCaseProtocol
    private let changePreferenceUseCase: any ChangePreferenceUseCaseProtocol
    private let resetPreferencesUseCase: any ResetPreferencesUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Public Properties

    private(set) var state: LoadingState<Content> = .idle

    // MARK: Initialization

    init(
        getPreferencesUseCase: any GetPreferencesUseCaseProtocol,
        changePreferenceUseCase: any ChangePreferenceUseCaseProtocol,
        resetPreferencesUseCase: any ResetPreferencesUseCaseProtocol,
        logger: FeatureLogger
    ) {
        self.getPreferencesUseCase = getPreferencesUseCase
        self.changePreferenceUseCase = changePreferenceUseCase
        self.resetPreferencesUseCase = resetPreferencesUseCase
        self.logger = logger
    }

    // MARK: Lifecycle

    func onAppear() async {
        await loadPreferences()
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onChangedTheme(let theme): try await onChangedTheme(theme)
        case .onChangedNotificationsEnabled(let isEnabled): try await onChangedNotificationsEnabled(isEnabled)
        case .onChangedLanguage(let language): try await onChangedLanguage(language)
        case .onTappedResetToDefaults: try await onTappedResetToDefaults()
        case .onTappedRetry: await onTappedRetry()
        }
    }

    func onChangedTheme(_ theme: Theme) async throws {
        try await changePreference(.theme(theme))
    }

    func onChangedNotificationsEnabled(_ isEnabled: Bool) async throws {
        try await changePreference(.notificationsEnabled(isEnabled))
    }

    func onChangedLanguage(_ language: Language) async throws {
        try await changePreference(.language(language))
    }

    /// Resets the stored preferences, as ``changePreference(_:)`` makes a change.
    func onTappedResetToDefaults() async throws {
        try await loadCompletion.wait(while: state.isLoading)
        do {
            let defaults = try await resetPreferencesUseCase.execute()
            saved = defaults
            state = .loaded(formatContent(defaults))
        } catch {
            logger.error("settings.resetFailed", metadata: ["error": "\(error)"])
            guard state.value != nil else { throw error }
            showSaveError()
        }
    }

    func onTappedRetry() async {
        await loadPreferences()
    }
}

// MARK: - Private Functions

private extension SettingsViewModel {
    /// The preferences the screen shows, or `nil` while there is nothing to show.
    var shown: Preferences? {
        state.value.map {
            Preferences(theme: $0.theme, notificationsEnabled: $0.notificationsEnabled, language: $0.language)
        }
    }

    func loadPreferences() async {
        guard !state.isLoading else { return }
        state = .loading
        defer { loadCompletion.signal() }
        do {
            saved = try await getPreferencesUseCase.execute()
            state = .loaded(formatContent(saved))
        } catch {
            logger.error("settings.loadFailed", metadata: ["error": "\(error)"])
            state = .error("Your settings could not be loaded. Please try again.")
        }
    }

    /// Shows the change at once, then makes it to the stored preferences and shows them as stored: with the changes
    /// made meanwhile by this screen's other intents and by other sessions' screens. If the save fails, shows what is
    /// stored and says so.
    ///
    /// A change sent while the preferences load (a front end may send it right after navigating here) waits until
    /// they have loaded. After a failed load it is made all the same, and shows the preferences it stored; if that
    /// save fails too, there is nothing to show the failure in, so the intent fails (`IntentFailed`): never answered
    /// as done when nothing was stored.
    func changePreference(_ change: PreferenceChange) async throws {
        try await loadCompletion.wait(while: state.isLoading)
        if var preferences = shown {
            change.apply(to: &preferences)
            state = .loaded(formatContent(preferences))
        }
        do {
            saved = try await changePreferenceUseCase.execute(change)
            state = .loaded(formatContent(saved))
        } catch {
            logger.error("settings.saveFailed", metadata: ["error": "\(error)"])
            guard state.value != nil else { throw error }
            showSaveError()
        }
    }

    func showSaveError() {
        state = .loaded(formatContent(saved, saveError: "Your change could not be saved. Please try again."))
    }

    func formatContent(_ preferences: Preferences, saveError: String? = nil) -> Content {
        Content(
            theme: preferences.theme,
            notificationsEnabled: preferences.notificationsEnabled,
            language: preferences.language,
            themes: Theme.allCases,
            languages: Language.allCases.map { LanguageOption(code: $0.rawValue, name: formatLanguageName($0)) },
            saveError: saveError
        )
    }

    func formatLanguageName(_ language: Language) -> String {
        switch language {
        case .english: "English"
        case .french: "Français"
        case .german: "Deutsch"
        case .spanish: "Español"
        case .japanese: "日本語"
        }
    }
}
