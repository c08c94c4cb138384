import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import SettingsFeature

@Suite("The settings use cases, over the repository and the host's store")
struct SettingsUseCaseAndRepositoryTests {
    private func makeRepository(_ store: any KeyValueStore) -> PreferencesRepositoryImpl {
        PreferencesRepositoryImpl(dataSource: PreferencesStoreDataSource(store: store), logger: .silent)
    }

    /// Changes every preference to ``Preferences/customized``, one change at a time; returns the last answer.
    @discardableResult
    private func customize(_ repository: PreferencesRepositoryImpl) async throws -> Preferences {
        let useCase = ChangePreferenceUseCase(repository: repository)
        _ = try await useCase.execute(.theme(.dark))
        _ = try await useCase.execute(.notificationsEnabled(false))
        return try await useCase.execute(.language(.french))
    }

    @Test("A user who never saved anything gets the defaults: system theme, notifications on, English")
    func defaults() async throws {
        let preferences = try await GetPreferencesUseCase(repository: makeRepository(InMemoryKeyValueStore())).execute()
        #expect(preferences == Preferences(theme: .system, notificationsEnabled: true, language: .english))
    }

    @Test("Saved preferences are read back after a restart")
    func savedPreferencesSurviveARestart() async throws {
        let store = InMemoryKeyValueStore()
        #expect(try await customize(makeRepository(store)) == .customized)

        let restarted = makeRepository(store)
        #expect(try await GetPreferencesUseCase(repository: restarted).execute() == .customized)
    }

    @Test("Preferences are stored as one readable JSON object")
    func storedForm() async throws {
        let store = InMemoryKeyValueStore()
        try await customize(makeRepository(store))
        #expect(
            await store.values["preferences"] == ["theme": "dark", "notificationsEnabled": false, "language": "fr"]
        )
    }

    @Test("Resetting forgets the stored preferences and gives the defaults")
    func resetting() async throws {
        let store = InMemoryKeyValueStore()
        let repository = makeRepository(store)
        try await customize(repository)

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
            try await ChangePreferenceUseCase(repository: repository).execute(.theme(.dark))
        }
    }

    @Test("Changes made at once, from many screens, all stay: each is made to what the one before it stored")
    func concurrentChangesAllStay() async throws {
        // A store whose reads let other tasks run before they answer: a change made as a read and then a write
        // would lose changes written in between. `updateValue` is the in-memory store's, one step.
        let store = YieldingStore()
        let repository = makeRepository(store)
        let changes: [PreferenceChange] = [.theme(.dark), .notificationsEnabled(false), .language(.french)]
        try await withThrowingTaskGroup(of: Preferences.self) { group in
            for change in changes {
                group.addTask { try await ChangePreferenceUseCase(repository: repository).execute(change) }
            }
            var answers: [Preferences] = []
            for try await answer in group { answers.append(answer) }
            #expect(answers.contains(.customized), "the last change made answers with all three: \(answers)")
        }
        #expect(try await GetPreferencesUseCase(repository: repository).execute() == .customized)
    }
}

/// An in-memory store whose reads and writes yield first, so that tasks interleave between them.
private struct YieldingStore: KeyValueStore {
    let memory = InMemoryKeyValueStore()

    func value(forKey key: String) async throws -> JSONValue? {
        await Task.yield()
        return try await memory.value(forKey: key)
    }

    func setValue(_ value: JSONValue, forKey key: String) async throws {
        await Task.yield()
        try await memory.setValue(value, forKey: key)
    }

    func removeValue(forKey key: String) async throws {
        try await memory.removeValue(forKey: key)
    }

    func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) async throws -> JSONValue? {
        await Task.yield()
        return try await memory.updateValue(forKey: key, transform)
    }
}
