package import NavHostKit

/// The UserProfile feature: a user's profile and the form that edits it.
///
/// Profiles live in the host's durable store; a new store is seeded with a few users (see `SeedUsers`). Other
/// features open a profile by route ID: `profile.user` with `{"userID": "u1"}`.
final class UserProfileFeature: FeatureModule {
    let name = "UserProfile"
    let screens = [
        ScreenDescriptor(
            route: "profile.user",
            parameters: ["userID"],
            viewModel: UserProfileViewModel.self,
            summary: "A user's profile: name, email address and how long they have been a member."
        ),
        ScreenDescriptor(
            route: "profile.edit",
            parameters: ["userID"],
            viewModel: EditProfileViewModel.self,
            summary: "Changes a user's name and email address, checking both before saving."
        ),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        UserProfileCoordinator(services: services)
    }
}

/// The module that the plugin's C entry point (in `Plugins/UserProfile/Entry`) hands to the daemon.
package func makeUserProfileFeature() -> any FeatureModule {
    UserProfileFeature()
}
