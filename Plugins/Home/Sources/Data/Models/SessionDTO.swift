/// The session as it is stored: `{"userID":"u1"}`.
struct SessionDTO: Codable, Equatable, Sendable {
    let userID: String

    /// The session as the domain sees it.
    func toDomain() -> Session {
        Session(userID: userID)
    }
}
