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

/// A `ChangePreferenceUseCase` over preferences it keeps itself: it records each change, runs the test's answer
/// (which can suspend or fail), then makes the change and returns what it keeps.
final class ChangePreferenceUseCaseMock: ChangePreferenceUseCaseProtocol {
    private let answer: @Sendable (PreferenceChange) async throws -> Void
    private let received = Mutex<[PreferenceChange]>([])
    private let stored: Mutex<Preferences>

    /// The changes asked for, oldest first.
    var changes: [PreferenceChange] { received.withLock { $0 } }

    init(
        storing preferences: Preferences = .defaults,
        _ answer: @escaping @Sendable (PreferenceChange) async throws -> Void = { _ in }
    ) {
        self.stored = Mutex(preferences)
        self.answer = answer
    }

    /// Makes `change` to what is kept without being asked: another session's screen.
    func changeElsewhere(_ change: PreferenceChange) {
        stored.withLock { change.apply(to: &$0) }
    }

    nonisolated(nonsending) func execute(_ change: PreferenceChange) async throws -> Preferences {
        received.withLock { $0.append(change) }
        try await answer(change)
        return stored.withLock { preferences in
            change.apply(to: &preferences)
            return preferences
        }
    }
}

/// A `ResetPreferencesUseCase` whose answer the test writes.
final class ResetPreferencesUseCaseMock: ResetPreferencesUseCaseProtocol {
    private let answer: @Sendable () async throws -> Preferences

    init(_ answer: @escaping @Sendable () async throws -> Preferences = { .defaults }) {
        self.answer = answer
    }

    nonisolated(nonsending) func execute() async throws -> Preferences {
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
