import Foundation
import NavHostKit
import NavHostTesting
import Synchronization

@testable import UserProfileFeature

// MARK: - Mock

/// A `GetUserProfileUseCase` whose answers the test writes, one call at a time (``ScriptedAnswers``); it records
/// whom it was asked for.
final class GetUserProfileUseCaseMock: GetUserProfileUseCaseProtocol, ScriptedUseCase {
    let answers: ScriptedAnswers<String, UserProfile>

    init(_ answers: ScriptedAnswers<String, UserProfile>) {
        self.answers = answers
    }

    /// The user IDs asked for, oldest first.
    var requestedIDs: [String] { answers.inputs }

    func execute(userID: String) async throws -> UserProfile {
        try await answers.answer(userID)
    }
}

/// An `ObserveUserProfileUseCase` whose changes the test sends through ``send(_:)``.
final class ObserveUserProfileUseCaseMock: ObserveUserProfileUseCaseProtocol {
    private let changes: AsyncStream<UserProfile>
    private let continuation: AsyncStream<UserProfile>.Continuation
    private let dropped = Atomic<Bool>(false)

    init() {
        (changes, continuation) = AsyncStream.makeStream()
        continuation.onTermination = { [weak self] _ in self?.dropped.store(true, ordering: .releasing) }
    }

    /// Whether the follower has stopped following (its stream of changes ended).
    var isDropped: Bool { dropped.load(ordering: .acquiring) }

    /// Sends a changed profile to the follower.
    func send(_ profile: UserProfile) {
        continuation.yield(profile)
    }

    func execute(userID: String) async -> AsyncStream<UserProfile> {
        changes
    }
}

/// An `UpdateUserProfileUseCase` whose answers the test writes; it records the updates it was given.
final class UpdateUserProfileUseCaseMock: UpdateUserProfileUseCaseProtocol {
    private let answer: @Sendable (ProfileUpdate) async throws -> UserProfile
    private let received = Mutex<[ProfileUpdate]>([])

    /// The updates received, oldest first.
    var updates: [ProfileUpdate] { received.withLock { $0 } }

    init(_ answer: @escaping @Sendable (ProfileUpdate) async throws -> UserProfile) {
        self.answer = answer
    }

    func execute(_ update: ProfileUpdate) async throws -> UserProfile {
        received.withLock { $0.append(update) }
        return try await answer(update)
    }
}

/// A repository that keeps profiles in memory and records what it saves.
actor UserProfileRepositoryMock: UserProfileRepositoryProtocol {
    private var profiles: [String: UserProfile]
    private(set) var saved: [UserProfile] = []
    private var followers: [(userID: String, continuation: AsyncStream<UserProfile>.Continuation)] = []

    init(_ profiles: [UserProfile] = []) {
        self.profiles = Dictionary(uniqueKeysWithValues: profiles.map { ($0.id, $0) })
    }

    func fetchProfile(userID: String) throws -> UserProfile {
        guard let profile = profiles[userID] else { throw UserProfileError.userNotFound(userID: userID) }
        return profile
    }

    func saveProfile(_ profile: UserProfile) {
        profiles[profile.id] = profile
        saved.append(profile)
        for follower in followers where follower.userID == profile.id {
            follower.continuation.yield(profile)
        }
    }

    func profileChanges(userID: String) -> AsyncStream<UserProfile> {
        let (stream, continuation) = AsyncStream.makeStream(of: UserProfile.self)
        followers.append((userID, continuation))
        return stream
    }
}

// MARK: - Fixtures

extension UserProfile {
    static let ada = UserProfile(
        id: "u1",
        name: "Ada Lovelace",
        email: "ada.lovelace@example.org",
        memberSince: CalendarDay(year: 1833, month: 6, day: 5)
    )

    static let grace = UserProfile(
        id: "u2",
        name: "Grace Hopper",
        email: "grace.hopper@example.org",
        memberSince: CalendarDay(year: 1944, month: 7, day: 2)
    )
}

/// Host services for tests: silent logs, the continuous clock, the given store and no resources.
func makeTestServices(store: any KeyValueStore = InMemoryKeyValueStore()) -> HostServices {
    HostServices(logger: .silent, clock: ContinuousClock(), store: store, resourceDirectory: "/nonexistent")
}

/// The files of the plugin, found from this source file's path.
enum PluginFiles {
    /// `Plugins/UserProfile/plugin.json`.
    static let manifest = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("plugin.json")
}
