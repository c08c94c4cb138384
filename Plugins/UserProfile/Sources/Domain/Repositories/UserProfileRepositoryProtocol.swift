/// Where users' profiles are kept.
protocol UserProfileRepositoryProtocol: Sendable {
    /// The profile of the user `userID`.
    ///
    /// - Throws: ``UserProfileError/userNotFound(userID:)`` when there is no such user.
    func fetchProfile(userID: String) async throws -> UserProfile

    /// Stores `profile`, replacing the user's earlier one, and tells the followers of that user.
    func saveProfile(_ profile: UserProfile) async throws

    /// Every profile of the user `userID` saved from now on, newest last, until the stream is dropped.
    func profileChanges(userID: String) async -> AsyncStream<UserProfile>
}
