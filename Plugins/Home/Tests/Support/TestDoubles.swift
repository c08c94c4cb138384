import Foundation
import NavHostKit
import NavHostTesting
import Synchronization

@testable import HomeFeature

// MARK: - Mock

/// A `GetCurrentUserIDUseCase` whose answer the test writes; it counts its calls.
final class GetCurrentUserIDUseCaseMock: GetCurrentUserIDUseCaseProtocol {
    private let answer: @Sendable () async throws -> String
    private let calls = Mutex(0)

    /// How many times `execute()` was called.
    var callCount: Int { calls.withLock { $0 } }

    init(_ answer: @escaping @Sendable () async throws -> String) {
        self.answer = answer
    }

    static func returning(_ userID: String) -> GetCurrentUserIDUseCaseMock {
        GetCurrentUserIDUseCaseMock { userID }
    }

    static func failing(_ error: any Error = TestError.unavailable) -> GetCurrentUserIDUseCaseMock {
        GetCurrentUserIDUseCaseMock { throw error }
    }

    func execute() async throws -> String {
        calls.withLock { $0 += 1 }
        return try await answer()
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
