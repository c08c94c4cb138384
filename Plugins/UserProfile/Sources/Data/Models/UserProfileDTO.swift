/// A profile as it is stored: `{"id":"u1","name":"Ada Lovelace","email":"ada@example.org","memberSince":"1833-06-05"}`.
struct UserProfileDTO: Codable, Equatable, Sendable {
    let id: String
    let name: String
    let email: String
    /// The day the user joined, as `YYYY-MM-DD`.
    let memberSince: String

    init(id: String, name: String, email: String, memberSince: String) {
        self.id = id
        self.name = name
        self.email = email
        self.memberSince = memberSince
    }

    /// The stored form of `profile`.
    init(_ profile: UserProfile) {
        let day = profile.memberSince
        self.init(
            id: profile.id,
            name: profile.name,
            email: profile.email,
            memberSince: "\(Self.pad(day.year, to: 4))-\(Self.pad(day.month, to: 2))-\(Self.pad(day.day, to: 2))"
        )
    }

    /// The profile as the domain sees it.
    ///
    /// - Throws: ``UserProfileDataError/corrupt(userID:reason:)`` when `memberSince` is not a `YYYY-MM-DD` date.
    func toDomain() throws -> UserProfile {
        let parts = memberSince.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
            (1...12).contains(month), (1...31).contains(day)
        else {
            throw UserProfileDataError.corrupt(userID: id, reason: "memberSince \"\(memberSince)\" is not YYYY-MM-DD")
        }
        return UserProfile(
            id: id,
            name: name,
            email: email,
            memberSince: CalendarDay(year: year, month: month, day: day)
        )
    }

    private static func pad(_ number: Int, to width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// Why stored profiles could not be used.
enum UserProfileDataError: Error, Equatable, Sendable {
    /// A stored profile is not in the form this plugin writes.
    case corrupt(userID: String, reason: String)
}
