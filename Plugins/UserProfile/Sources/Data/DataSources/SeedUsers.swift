/// The users a new store starts with, so that the example has someone to show.
///
/// Products sells items from `u1` and `u2`; Home opens `u1`, the device's signed-in user.
enum SeedUsers {
    /// Raise this when ``all`` changes: a store seeded with an older version gets the users it lacks.
    static let version = 1

    static let all = [
        UserProfileDTO(id: "u1", name: "Ada Lovelace", email: "ada.lovelace@example.org", memberSince: "1833-06-05"),
        UserProfileDTO(id: "u2", name: "Grace Hopper", email: "grace.hopper@example.org", memberSince: "1944-07-02"),
        UserProfileDTO(id: "u3", name: "Alan Turing", email: "alan.turing@example.org", memberSince: "1936-11-12"),
    ]
}
