import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import UserProfileFeature

@MainActor
@Suite("The UserProfile feature module")
struct UserProfileFeatureTests {
    /// One value of every route case. The `switch` stops compiling when a case is added, as a reminder to list it.
    private static let everyRoute: [ProfileRoute] = {
        let routes: [ProfileRoute] = [.user(userID: "u1"), .edit(userID: "u1")]
        for route in routes {
            switch route {
            case .user, .edit: break
            }
        }
        return routes
    }()

    @Test("Its screens list every route, with the route's parameters")
    func screensListEveryRoute() throws {
        let feature = UserProfileFeature()
        let requests = try Self.everyRoute.map { try $0.request }
        #expect(feature.screens.map(\.route) == requests.map(\.id))
        #expect(feature.screens.map(\.parameters) == requests.map { Array($0.parameters.keys) })
        #expect(feature.screens.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("Its screens name the intents of their ViewModels")
    func screensNameTheirIntents() {
        let intents = Dictionary(uniqueKeysWithValues: UserProfileFeature().screens.map { ($0.route, $0.intents) })
        #expect(intents["profile.user"] == UserProfileViewModel.Intent.names)
        #expect(intents["profile.edit"] == EditProfileViewModel.Intent.names)
    }

    @Test("Every intent name of the profile screen decodes from its wire form")
    func profileIntentsDecode() {
        let messages = [IntentMessage(name: "onTappedRetry"), IntentMessage(name: "onTappedEditProfile")]
        #expect(messages.map(\.name) == UserProfileViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: UserProfileViewModel.Intent.self) }
        }
    }

    @Test("Every intent name of the edit screen decodes from its wire form")
    func editIntentsDecode() {
        let messages = [
            IntentMessage(name: "onChangedName", arguments: ["name": "Ada"]),
            IntentMessage(name: "onChangedEmail", arguments: ["email": "ada@example.org"]),
            IntentMessage(name: "onTappedSave"),
            IntentMessage(name: "onTappedCancel"),
            IntentMessage(name: "onTappedRetry"),
        ]
        #expect(messages.map(\.name) == EditProfileViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: EditProfileViewModel.Intent.self) }
        }
    }

    @Test("An intent with an argument of the wrong type is refused")
    func wrongArgumentType() {
        #expect(throws: IntentError.self) {
            try IntentMessage(name: "onChangedName", arguments: ["name": 42]).decode(
                as: EditProfileViewModel.Intent.self
            )
        }
    }

    @Test("The coordinator builds each route's ViewModel, and refuses other routes")
    func coordinatorBuildsViewModels() throws {
        let coordinator = try UserProfileFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        let user = RouteRequest(id: "profile.user", parameters: ["userID": "u1"])
        let edit = RouteRequest(id: "profile.edit", parameters: ["userID": "u1"])
        #expect(
            try coordinator.makeViewModel(for: user, navigation: handler, screen: .init("s1")) is UserProfileViewModel
        )
        #expect(
            try coordinator.makeViewModel(for: edit, navigation: handler, screen: .init("s2")) is EditProfileViewModel
        )
        #expect(throws: RouteError.unknownRoute("profile.delete")) {
            try coordinator.makeViewModel(
                for: RouteRequest(id: "profile.delete", parameters: ["userID": "u1"]),
                navigation: handler,
                screen: .init("s3")
            )
        }
    }

    @Test("Wired by the coordinator: edit, save, pop back, and the profile below shows the change")
    func editSaveAndReturn() async throws {
        let store = InMemoryKeyValueStore()
        let coordinator = try UserProfileFeature().makeCoordinator(services: makeTestServices(store: store))
        let handler = RecordingNavigationHandler()

        let profile = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]),
                navigation: handler,
                screen: .init("s1")
            ) as? UserProfileViewModel
        )
        await profile.onAppear()
        #expect(profile.state.value?.name == "Grace Hopper")
        try await profile.handle(.onTappedEditProfile)

        let edit = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "profile.edit", parameters: ["userID": "u2"]),
                navigation: handler,
                screen: .init("s2")
            ) as? EditProfileViewModel
        )
        await edit.onAppear()
        try await edit.handle(.onChangedName(name: "Rear Admiral Grace Hopper"))
        try await edit.handle(.onTappedSave)

        #expect(
            handler.performed.map(\.command) == [
                .navigate(RouteRequest(id: "profile.edit", parameters: ["userID": "u2"])), .pop,
            ]
        )
        #expect(handler.performed.map(\.screen) == [ScreenID("s1"), ScreenID("s2")])
        #expect(await eventually { profile.state.value?.name == "Rear Admiral Grace Hopper" })
        #expect(await store.values["users/u2"]?["name"] == "Rear Admiral Grace Hopper")
    }

    @Test("Wired by the coordinator, an unknown user shows an error")
    func unknownUser() async throws {
        let coordinator = try UserProfileFeature().makeCoordinator(services: makeTestServices())
        let profile = try #require(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "profile.user", parameters: ["userID": "u404"]),
                navigation: RecordingNavigationHandler(),
                screen: .init("s1")
            ) as? UserProfileViewModel
        )
        await profile.onAppear()
        #expect(profile.state == .error("There is no user with this ID."))
    }

    @Test("plugin.json names this feature")
    func manifest() throws {
        let manifest = try JSONParser().parse(Data(contentsOf: PluginFiles.manifest))
        #expect(manifest["name"]?.stringValue == UserProfileFeature().name)
        #expect(manifest["version"]?.stringValue == "1.0.0")
        #expect(manifest["resources"] == [])
    }
}
