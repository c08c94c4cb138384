import NavHostKit

/// Users' profiles, kept in the host's durable store and seeded with ``SeedUsers`` the first time.
///
/// An actor, because it also keeps the followers of each user (``profileChanges(userID:)``) and makes sure seeding
/// runs once even when several screens load at the same moment.
actor UserProfileRepositoryImpl: UserProfileRepositoryProtocol {

    // MARK: Private Properties

    private struct Follower {
        let userID: String
        let continuation: AsyncStream<UserProfile>.Continuation
    }

    private let dataSource: any UserProfileDataSourceProtocol
    private let seedUsers: [UserProfileDTO]
    private let seedVersion: Int
    private let logger: FeatureLogger
    private var seeding: Task<Void, any Error>?
    private var followers: [Int: Follower] = [:]
    private var nextFollowerID = 0

    // MARK: Initialization

    init(
        dataSource: any UserProfileDataSourceProtocol,
        seedUsers: [UserProfileDTO] = SeedUsers.all,
        seedVersion: Int = SeedUsers.version,
        logger: FeatureLogger
    ) {
        self.dataSource = dataSource
        self.seedUsers = seedUsers
        self.seedVersion = seedVersion
        self.logger = logger
    }

    // MARK: Public Functions

    func fetchProfile(userID: String) async throws -> UserProfile {
        try await seedIfNeeded()
        guard let user = try await dataSource.user(id: userID) else {
            throw UserProfileError.userNotFound(userID: userID)
        }
        return try user.toDomain()
    }

    func saveProfile(_ profile: UserProfile) async throws {
        try await seedIfNeeded()
        try await dataSource.saveUser(UserProfileDTO(profile))
        logger.info("profile.saved", metadata: ["userID": "\(profile.id)"])
        for follower in followers.values where follower.userID == profile.id {
            follower.continuation.yield(profile)
        }
    }

    func profileChanges(userID: String) -> AsyncStream<UserProfile> {
        let (stream, continuation) = AsyncStream.makeStream(of: UserProfile.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextFollowerID
        nextFollowerID += 1
        followers[id] = Follower(userID: userID, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeFollower(id) }
        }
        return stream
    }
}

// MARK: - Private Functions

private extension UserProfileRepositoryImpl {
    func removeFollower(_ id: Int) {
        followers[id] = nil
    }

    /// Runs the seeding once; a failed attempt is retried by the next call.
    func seedIfNeeded() async throws {
        let task: Task<Void, any Error>
        if let seeding {
            task = seeding
        } else {
            task = Task { [dataSource, seedUsers, seedVersion, logger] in
                try await Self.seed(seedUsers, version: seedVersion, into: dataSource, logger: logger)
            }
            seeding = task
        }
        do {
            try await task.value
        } catch {
            if seeding == task { seeding = nil }
            throw error
        }
    }

    /// Writes the seed users the store lacks, never overwriting a stored profile.
    static func seed(
        _ users: [UserProfileDTO],
        version: Int,
        into dataSource: any UserProfileDataSourceProtocol,
        logger: FeatureLogger
    ) async throws {
        if let stored = try await dataSource.seedVersion(), stored >= version { return }
        var written: [String] = []
        for user in users {
            guard try await dataSource.user(id: user.id) == nil else { continue }
            try await dataSource.saveUser(user)
            written.append(user.id)
        }
        try await dataSource.setSeedVersion(version)
        logger.info(
            "profile.seeded",
            metadata: ["users": "\(written.joined(separator: ","))", "version": "\(version)"]
        )
    }
}
