import NavHostKit

/// The device's session, kept in the host's durable store.
///
/// The example app has no sign-in flow: a store without a session is given one for ``defaultUserID`` (the seeded
/// user `u1` of the UserProfile feature), which an operator can change by storing another `{"userID": …}`.
final class SessionRepositoryImpl: SessionRepositoryProtocol {

    // MARK: Private Properties

    private let dataSource: any SessionDataSourceProtocol
    private let defaultUserID: String
    private let logger: FeatureLogger

    // MARK: Public Properties

    /// The user a new device is signed in as.
    static let defaultUserID = "u1"

    // MARK: Initialization

    init(
        dataSource: any SessionDataSourceProtocol,
        defaultUserID: String = SessionRepositoryImpl.defaultUserID,
        logger: FeatureLogger
    ) {
        self.dataSource = dataSource
        self.defaultUserID = defaultUserID
        self.logger = logger
    }

    // MARK: Public Functions

    func currentSession() async throws -> Session {
        if let stored = try await dataSource.session() {
            return stored.toDomain()
        }
        let session = SessionDTO(userID: defaultUserID)
        try await dataSource.saveSession(session)
        logger.info("home.session.started", metadata: ["userID": "\(defaultUserID)"])
        return session.toDomain()
    }
}
