import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import SettingsFeature

@Suite("The settings use cases, over the repository and the host's store")
struct SettingsUseCaseAndRepositoryTests {
    private func makeRepository(_ store: InMemoryKeyValueStore) -> PreferencesRepositoryImpl {
        PreferencesRepositoryImpl(dataSource: PreferencesStoreDataSource(store: store), logger: .silent)
    }

    @Test("A user who never saved anything gets the defaults: system theme, notifications on, English")
    func defaults() async throws {
        let preferences = try await GetPreferencesUseCase(repository: makeRepository(InMemoryKeyValueStore())).execute()
        #expect(preferences == Preferences(theme: .system, notificationsEnabled: true, language: .english))
    }

    @Test("Saved preferences are read back after a restart")
    func savedPreferencesSurviveARestart() async throws {
        let store = InMemoryKeyValueStore()
        try await SavePreferencesUseCase(repository: makeRepository(store)).execute(.customized)

        let restarted = makeRepository(store)
        #expect(try await GetPreferencesUseCase(repository: restarted).execute() == .customized)
    }

    @Test("Preferences are stored as one readable JSON object")
    func storedForm() async throws {
        let store = InMemoryKeyValueStore()
        try await SavePreferencesUseCase(repository: makeRepository(store)).execute(.customized)
        #expect(
            await store.values["preferences"] == ["theme": "dark", "notificationsEnabled": false, "language": "fr"]
        )
    }

    @Test("Resetting forgets the stored preferences and gives the defaults")
    func resetting() async throws {
        let store = InMemoryKeyValueStore()
        let repository = makeRepository(store)
        try await SavePreferencesUseCase(repository: repository).execute(.customized)

        #expect(try await ResetPreferencesUseCase(repository: repository).execute() == .defaults)
        #expect(await store.values["preferences"] == nil)
        #expect(try await GetPreferencesUseCase(repository: repository).execute() == .defaults)
    }

    @Test("A stored theme or language this build does not know falls back to its default, keeping the rest")
    func unknownStoredValues() async throws {
        let store = InMemoryKeyValueStore([
            "preferences": ["theme": "high-contrast", "notificationsEnabled": false, "language": "tlh"]
        ])
        let preferences = try await GetPreferencesUseCase(repository: makeRepository(store)).execute()
        #expect(preferences == Preferences(theme: .system, notificationsEnabled: false, language: .english))
    }

    @Test("A store that fails makes reading and saving fail")
    func storeFailure() async {
        let store = InMemoryKeyValueStore()
        await store.failEveryCall(with: TestError.unavailable)
        let repository = makeRepository(store)
        await #expect(throws: TestError.unavailable) {
            try await GetPreferencesUseCase(repository: repository).execute()
        }
        await #expect(throws: TestError.unavailable) {
            try await SavePreferencesUseCase(repository: repository).execute(.customized)
        }
    }
}
