import Foundation
import NavHostKit
import NavHostTesting

@testable import HomeFeature

// MARK: - Mock

/// A `GetCurrentUserIDUseCase` whose answers the test writes (``ScriptedAnswers``); it counts its calls.
final class GetCurrentUserIDUseCaseMock: GetCurrentUserIDUseCaseProtocol, ScriptedUseCase {
    let answers: ScriptedAnswers<Void, String>

    init(_ answers: ScriptedAnswers<Void, String>) {
        self.answers = answers
    }

    /// How many times `execute()` was called.
    var callCount: Int { answers.callCount }

    func execute() async throws -> String {
        try await answers.answer(())
    }
}

/// A feature availability repository whose features the test sets, as the host would while plugins come and go.
@MainActor
final class FeatureAvailabilityRepositoryFake: FeatureAvailabilityRepositoryProtocol {
    private let features: OptionalFeatures

    init(present: Set<String> = ["Products", "UserProfile", "Settings"]) {
        features = OptionalFeatures(present: present)
    }

    var presentFeatures: Set<String> { features.present }

    func presentFeatureChanges() -> AsyncStream<Set<String>> {
        features.changes()
    }

    /// Changes what is loaded, as a plugin added or removed would.
    func setPresent(_ present: Set<String>) {
        features.update(present: present)
    }
}

// MARK: - Fixtures

/// Host services for tests: silent logs, the continuous clock, the given store, no resources, and the given
/// optional features loaded (all three by default).
func makeTestServices(
    store: any KeyValueStore = InMemoryKeyValueStore(),
    present: Set<String> = ["Products", "UserProfile", "Settings"]
) -> HostServices {
    HostServices(
        logger: .silent,
        clock: ContinuousClock(),
        store: store,
        resourceDirectory: "/nonexistent",
        random: SystemRandomSource(),
        optionalFeatures: OptionalFeatures(present: present)
    )
}

/// The files of the plugin, found from this source file's path.
enum PluginFiles {
    /// `Plugins/Home/plugin.json`.
    static let manifest = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("plugin.json")
}
