/// Where the device's session is kept.
protocol SessionRepositoryProtocol: Sendable {
    /// The current session.
    func currentSession() async throws -> Session
}
