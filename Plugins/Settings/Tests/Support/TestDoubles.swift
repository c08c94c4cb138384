import Foundation
import NavHostKit
import NavHostTesting
import Synchronization

@testable import SettingsFeature

// MARK: - Mock

/// A `GetPreferencesUseCase` whose answers the test writes, one call at a time (``ScriptedAnswers``).
final class GetPreferencesUseCaseMock: GetPreferencesUseCaseProtocol, ScriptedUseCase {
    let answers: ScriptedAnswers<Void, Preferences>

    init(_ answers: ScriptedAnswers<Void, Preferences>) {
        self.answers = answers
    }

    func execute() async throws -> Preferences {
        try await answers.answer(())
    }
}

/// A `SavePreferencesUseCase` that records what it is asked to save, and fails when the test says so.
final class SavePreferencesUseCaseMock: SavePreferencesUseCaseProtocol {
    private let answer: @Sendable (Preferences) async throws -> Void
    private let received = Mutex<[Preferences]>([])

    /// The preferences asked to be saved, oldest first.
    var saved: [Preferences] { received.withLock { $0 } }

    init(_ answer: @escaping @Sendable (Preferences) async throws -> Void = { _ in }) {
        self.answer = answer
    }

    func execute(_ preferences: Preferences) async throws {
        received.withLock { $0.append(preferences) }
        try await answer(preferences)
    }
}

/// A `ResetPreferencesUseCase` whose answer the test writes.
final class ResetPreferencesUseCaseMock: ResetPreferencesUseCaseProtocol {
    private let answer: @Sendable () async throws -> Preferences

    init(_ answer: @escaping @Sendable () async throws -> Preferences = { .defaults }) {
        self.answer = answer
    }

    func execute() async throws -> Preferences {
        try await answer()
    }
}

// MARK: - Fixtures

extension Preferences {
    /// A user who changed everything: dark, quiet, French.
    static let customized = Preferences(theme: .dark, notificationsEnabled: false, language: .french)
}

/// Host services for tests: silent logs, the continuous clock, the given store and no resources.
func makeTestServices(store: any KeyValueStore = InMemoryKeyValueStore()) -> HostServices {
    HostServices(logger: .silent, clock: ContinuousClock(), store: store, resourceDirectory: "/nonexistent")
}

/// The files of the plugin, found from this source file's path.
enum PluginFiles {
    /// `Plugins/Settings/plugin.json`.
    static let manifest = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("plugin.json")
}
