/// A user's profile, as the business sees it.
struct UserProfile: Identifiable, Equatable, Sendable {
    /// The user's ID, like `u1`.
    let id: String
    /// The name the user goes by.
    var name: String
    /// Where the user can be reached.
    var email: String
    /// The day the user joined.
    let memberSince: CalendarDay
}

/// A day of the calendar, without a time or a time zone.
struct CalendarDay: Equatable, Sendable {
    let year: Int
    /// From 1 (January) to 12.
    let month: Int
    let day: Int
}

/// The changes a user asks to make to their profile, as they typed them.
struct ProfileUpdate: Equatable, Sendable {
    /// Whose profile to change.
    let userID: String
    let name: String
    let email: String
}
