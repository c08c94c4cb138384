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

/// A failure a test double throws.
enum TestError: Error, Equatable {
    case unavailable
}

// MARK: - Suspension

/// The answer to a suspended use case, given by the test when it chooses, so the test can look in between.
final class Suspension<Value: Sendable>: Sendable {
    private let calls: AsyncStream<Void>
    private let callsContinuation: AsyncStream<Void>.Continuation
    private let answers: AsyncStream<Result<Value, any Error>>
    private let answersContinuation: AsyncStream<Result<Value, any Error>>.Continuation

    init() {
        (calls, callsContinuation) = AsyncStream.makeStream()
        (answers, answersContinuation) = AsyncStream.makeStream()
    }

    /// For the stub: signals the call, then waits for the test's answer.
    func value() async throws -> Value {
        callsContinuation.yield()
        for await answer in answers {
            return try answer.get()
        }
        throw CancellationError()
    }

    /// For the test: returns once the stub has been called (at once if it already was).
    func untilCalled() async {
        for await _ in calls { return }
    }

    /// Lets the suspended call return `value`.
    func resume(returning value: Value) {
        answersContinuation.yield(.success(value))
    }
}

// MARK: - Navigation

/// Stands in for the daemon's navigation stack: records what each screen asked for.
@MainActor
final class RecordingNavigationHandler: NavigationHandler {
    private(set) var performed: [(command: NavigationCommand, screen: ScreenID)] = []

    func perform(_ command: NavigationCommand, from screen: ScreenID) -> Bool {
        performed.append((command, screen))
        return true
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
