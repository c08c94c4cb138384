import NavHostCore
import NavHostKit
import NavHostTesting

extension HostServices {
    /// What a test lends the features it registers by hand: a silent logger, the continuous clock, a store in memory.
    static var forTests: HostServices {
        HostServices(logger: .silent, clock: ContinuousClock(), store: InMemoryKeyValueStore(), resourceDirectory: ".")
    }
}

extension FeatureCatalog {
    /// A catalog holding `features`, each registered with ``HostServices/forTests``.
    @MainActor
    static func holding(_ features: [any FeatureModule]) throws -> FeatureCatalog {
        let catalog = FeatureCatalog()
        for feature in features { try catalog.register(feature, services: .forTests) }
        return catalog
    }
}
