/// The tiles the root screen shows: one per loaded feature it opens.
@MainActor
protocol ObserveHomeTilesUseCaseProtocol: Sendable {
    /// The tiles to show now.
    func currentTiles() -> [HomeTile]
    /// The tiles now, then again each time a feature arrives or leaves, until the stream is dropped.
    func execute() -> AsyncStream<[HomeTile]>
}

/// Turns the loaded features into tiles, through the repository.
@MainActor
final class ObserveHomeTilesUseCase: ObserveHomeTilesUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any FeatureAvailabilityRepositoryProtocol

    // MARK: Initialization

    init(repository: any FeatureAvailabilityRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func currentTiles() -> [HomeTile] {
        HomeTile.tiles(for: repository.presentFeatures)
    }

    func execute() -> AsyncStream<[HomeTile]> {
        let changes = repository.presentFeatureChanges()
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let forwarding = Task {
                for await present in changes { continuation.yield(HomeTile.tiles(for: present)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarding.cancel() }
        }
    }
}
