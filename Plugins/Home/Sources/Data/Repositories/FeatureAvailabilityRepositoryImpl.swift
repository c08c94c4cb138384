import NavHostKit

/// Reads which features are loaded from the host: Home's optional dependencies, as `HostServices.optionalFeatures`
/// keeps them.
@MainActor
final class FeatureAvailabilityRepositoryImpl: FeatureAvailabilityRepositoryProtocol {

    // MARK: Private Properties

    private let optionalFeatures: OptionalFeatures

    // MARK: Initialization

    init(optionalFeatures: OptionalFeatures) {
        self.optionalFeatures = optionalFeatures
    }

    // MARK: Public Functions

    var presentFeatures: Set<String> { optionalFeatures.present }

    func presentFeatureChanges() -> AsyncStream<Set<String>> {
        optionalFeatures.changes()
    }
}
