/// Follows a user's profile as it changes, so that a screen showing it stays current.
protocol ObserveUserProfileUseCaseProtocol: Sendable {
    /// Every profile of the user `userID` saved from now on, until the stream is dropped.
    func execute(userID: String) async -> AsyncStream<UserProfile>
}

/// Follows a user's profile through the repository.
final class ObserveUserProfileUseCase: ObserveUserProfileUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any UserProfileRepositoryProtocol

    // MARK: Initialization

    init(repository: any UserProfileRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute(userID: String) async -> AsyncStream<UserProfile> {
        await repository.profileChanges(userID: userID)
    }
}
