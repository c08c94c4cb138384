/// Gives the ID of the user signed in on this device.
protocol GetCurrentUserIDUseCaseProtocol: Sendable {
    /// The signed-in user's ID, like `u1`.
    func execute() async throws -> String
}

/// Gives the signed-in user's ID from the current session.
final class GetCurrentUserIDUseCase: GetCurrentUserIDUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any SessionRepositoryProtocol

    // MARK: Initialization

    init(repository: any SessionRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute() async throws -> String {
        try await repository.currentSession().userID
    }
}
