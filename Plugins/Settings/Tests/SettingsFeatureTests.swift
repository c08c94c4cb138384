import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import SettingsFeature

@MainActor
@Suite("The Settings feature module")
struct SettingsFeatureTests {
    /// One value of every route case. The `switch` stops compiling when a case is added, as a reminder to list it.
    private static let everyRoute: [SettingsRoute] = {
        let routes: [SettingsRoute] = [.main]
        for route in routes {
            switch route {
            case .main: break
            }
        }
        return routes
    }()

    @Test("Its screens list every route, with the route's parameters")
    func screensListEveryRoute() throws {
        let feature = SettingsFeature()
        let requests = try Self.everyRoute.map { try $0.request }
        #expect(feature.screens.map(\.route) == requests.map(\.id))
        #expect(feature.screens.map(\.parameters) == requests.map { Array($0.parameters.keys) })
        #expect(feature.screens.map(\.intents) == [SettingsViewModel.Intent.names])
        #expect(feature.screens.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("Every intent name of the settings screen decodes from its wire form")
    func intentsDecode() {
        let messages = [
            IntentMessage(name: "onChangedTheme", arguments: ["theme": "dark"]),
            IntentMessage(name: "onChangedNotificationsEnabled", arguments: ["isEnabled": false]),
            IntentMessage(name: "onChangedLanguage", arguments: ["language": "de"]),
            IntentMessage(name: "onTappedResetToDefaults"),
            IntentMessage(name: "onTappedRetry"),
        ]
        #expect(messages.map(\.name) == SettingsViewModel.Intent.names)
        for message in messages {
            #expect(throws: Never.self, "\(message)") { try message.decode(as: SettingsViewModel.Intent.self) }
        }
    }

    @Test("Every theme and language decodes as an intent argument")
    func everyChoiceDecodes() throws {
        for theme in Theme.allCases {
            let intent = try IntentMessage(name: "onChangedTheme", arguments: ["theme": .string(theme.rawValue)])
                .decode(as: SettingsViewModel.Intent.self)
            guard case .onChangedTheme(theme) = intent else {
                Issue.record("\(theme) decoded as \(intent)")
                continue
            }
        }
        for language in Language.allCases {
            let intent = try IntentMessage(
                name: "onChangedLanguage",
                arguments: ["language": .string(language.rawValue)]
            )
            .decode(as: SettingsViewModel.Intent.self)
            guard case .onChangedLanguage(language) = intent else {
                Issue.record("\(language) decoded as \(intent)")
                continue
            }
        }
    }

    @Test("The coordinator builds the settings ViewModel, and refuses other routes")
    func coordinatorBuildsViewModels() throws {
        let coordinator = try SettingsFeature().makeCoordinator(services: makeTestServices())
        let handler = RecordingNavigationHandler()
        #expect(
            try coordinator.makeViewModel(
                for: RouteRequest(id: "settings.main"),
                navigation: handler,
                screen: .init("s1")
            )
                is SettingsViewModel
        )
        #expect(throws: RouteError.unknownRoute("settings.advanced")) {
            try coordinator.makeViewModel(
                for: RouteRequest(id: "settings.advanced"),
                navigation: handler,
                screen: .init("s1")
            )
        }
    }

    @Test("Wired by the coordinator, a change survives a restart of the feature")
    func changesSurviveARestart() async throws {
        let store = InMemoryKeyValueStore()
        let before = try #require(try makeSettingsScreen(store: store))
        await before.onAppear()
        try await before.handle(.onChangedTheme(theme: .dark))
        try await before.handle(.onChangedLanguage(language: .japanese))

        let after = try #require(try makeSettingsScreen(store: store))
        await after.onAppear()
        #expect(after.state.value?.theme == .dark)
        #expect(after.state.value?.language == .japanese)
        #expect(after.state.value?.notificationsEnabled == true)
    }

    @Test("plugin.json names this feature")
    func manifest() throws {
        let manifest = try JSONParser().parse(Data(contentsOf: PluginFiles.manifest))
        #expect(manifest["name"]?.stringValue == SettingsFeature().name)
        #expect(manifest["version"]?.stringValue == "1.0.0")
        #expect(manifest["resources"] == [])
    }

    /// The settings screen as the daemon would build it: through a fresh coordinator over `store`.
    private func makeSettingsScreen(store: InMemoryKeyValueStore) throws -> SettingsViewModel? {
        let coordinator = try SettingsFeature().makeCoordinator(services: makeTestServices(store: store))
        return try coordinator.makeViewModel(
            for: RouteRequest(id: "settings.main"),
            navigation: RecordingNavigationHandler(),
            screen: .init("s1")
        ) as? SettingsViewModel
    }
}
