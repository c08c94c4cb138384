/// Which of the features Home opens are loaded in the daemon, now and as they come and go.
@MainActor
protocol FeatureAvailabilityRepositoryProtocol: Sendable {
    /// The names of the features loaded now.
    var presentFeatures: Set<String> { get }
    /// The names of the loaded features now, then again each time one arrives or leaves.
    func presentFeatureChanges() -> AsyncStream<Set<String>>
}
