/// Gives a user's profile.
protocol GetUserProfileUseCaseProtocol: Sendable {
    /// The profile of the user `userID`.
    ///
    /// - Throws: ``UserProfileError/userNotFound(userID:)`` when there is no such user.
    func execute(userID: String) async throws -> UserProfile
}

/// Gives a user's profile from the repository.
final class GetUserProfileUseCase: GetUserProfileUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any UserProfileRepositoryProtocol

    // MARK: Initialization

    init(repository: any UserProfileRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute(userID: String) async throws -> UserProfile {
        try await repository.fetchProfile(userID: userID)
    }
}
