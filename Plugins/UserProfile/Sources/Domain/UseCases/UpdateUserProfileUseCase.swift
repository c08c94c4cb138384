/// Changes a user's name and email address, if they follow the rules.
protocol UpdateUserProfileUseCaseProtocol: Sendable {
    /// Saves `update` and returns the profile as saved.
    ///
    /// - Throws: ``ProfileValidationError`` when what the user typed breaks a rule (nothing is saved),
    ///   ``UserProfileError/userNotFound(userID:)`` when there is no such user.
    func execute(_ update: ProfileUpdate) async throws -> UserProfile
}

/// Validates a profile update, then saves it.
///
/// The rules: a name is not blank and has at most ``maximumNameLength`` characters; an email address has one `@`,
/// something before it, and a domain of at least two dot-separated labels after it, without spaces. Spaces around
/// either field are dropped, and an email address is kept in lower case.
final class UpdateUserProfileUseCase: UpdateUserProfileUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any UserProfileRepositoryProtocol

    // MARK: Public Properties

    /// The longest name a profile may have, in characters.
    static let maximumNameLength = 80

    // MARK: Initialization

    init(repository: any UserProfileRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute(_ update: ProfileUpdate) async throws -> UserProfile {
        let name = trim(update.name)
        let email = trim(update.email).lowercased()
        try validateName(name)
        try validateEmail(email)

        var profile = try await repository.fetchProfile(userID: update.userID)
        profile.name = name
        profile.email = email
        try await repository.saveProfile(profile)
        return profile
    }
}

// MARK: - Private Functions

private extension UpdateUserProfileUseCase {
    func trim(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    func validateName(_ name: String) throws(ProfileValidationError) {
        guard !name.isEmpty else { throw .emptyName }
        guard name.count <= Self.maximumNameLength else { throw .nameTooLong(maximum: Self.maximumNameLength) }
    }

    func validateEmail(_ email: String) throws(ProfileValidationError) {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !email.contains(where: \.isWhitespace) else {
            throw .invalidEmail
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { throw .invalidEmail }
    }
}
