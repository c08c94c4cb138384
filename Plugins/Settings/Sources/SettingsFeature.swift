package import NavHostKit

/// The Settings feature: the user's preferences, kept in the host's durable store so that they survive a restart.
final class SettingsFeature: FeatureModule {
    let name = "Settings"
    let screens = [
        ScreenDescriptor(
            route: "settings.main",
            viewModel: SettingsViewModel.self,
            summary: "The user's preferences: theme, notifications and language."
        )
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        SettingsCoordinator(services: services)
    }
}

/// The module that the plugin's C entry point (in `Plugins/Settings/Entry`) hands to the daemon.
package func makeSettingsFeature() -> any FeatureModule {
    SettingsFeature()
}
