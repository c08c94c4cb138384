/// Why a profile cannot be given or saved.
enum UserProfileError: Error, Equatable, Sendable {
    /// No user has this ID.
    case userNotFound(userID: String)
}

/// Why a profile update was refused: what the user typed breaks a rule. Nothing is saved.
enum ProfileValidationError: Error, Equatable, Sendable {
    /// The name is empty, or only spaces.
    case emptyName
    /// The name is longer than `maximum` characters.
    case nameTooLong(maximum: Int)
    /// The email address is not of the form `name@example.com`.
    case invalidEmail

    /// The field of the form the problem is in.
    var field: ProfileField {
        switch self {
        case .emptyName, .nameTooLong: .name
        case .invalidEmail: .email
        }
    }
}

/// A field of the profile form.
enum ProfileField: String, Sendable {
    case name
    case email
}
