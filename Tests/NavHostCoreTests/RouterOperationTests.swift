import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import NavHostTesting
import NavHostWire
import Testing

@MainActor
@Suite("Router operations on a session's stack")
struct RouterOperationTests {
    func makeHost() throws -> FeatureTestHost {
        try FeatureTestHost(features: [HomeFeature(), CatalogFeature(), ProfileFeature()], root: "home.main")
    }

    @Test("A new session holds only its root, at revision 0")
    func rootOnly() throws {
        let host = try makeHost()
        #expect(host.routeIDs == ["home.main"])
        #expect(host.revision == 0)
        #expect(host.top.state == [:], "a stateless ViewModel's state is {}")
    }

    @Test("navigate pushes a screen, then its onAppear loads: one revision each, in order")
    func navigatePushes() async throws {
        let getItems = ControlledGetItemsUseCase()
        let host = try FeatureTestHost(
            features: [HomeFeature(), CatalogFeature(getItems: getItems)],
            root: "home.main"
        )
        let screen = try host.navigate(to: "catalog.list")
        try await host.waitForRevision(2)
        #expect(try host.state(LoadingState<[Item]>.self) == .loading)
        await getItems.control.answerNext(with: .success([.lamp]))
        try await host.settle()
        #expect(host.routeIDs == ["home.main", "catalog.list"])
        let pushed = ScreenSnapshot(
            id: screen.id,
            route: RouteRequest(id: "catalog.list"),
            presentation: .push,
            state: ["status": "idle"]
        )
        #expect(
            host.takeSessionEvents() == [
                SessionEvent(revision: 1, change: .pushed(pushed)),
                SessionEvent(revision: 2, change: .stateChanged(screen.id, ["status": "loading"])),
                SessionEvent(
                    revision: 3,
                    change: .stateChanged(
                        screen.id,
                        ["status": "loaded", "value": [["id": "i1", "name": "Lamp", "ownerID": "u1"]]]
                    )
                ),
            ]
        )
    }

    @Test("State mutations with no suspension between them make one revision")
    func oneStretchOneRevision() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try await host.settle()
        _ = host.takeEvents()
        try await host.send("onTappedRetry")
        try await host.settle()
        #expect(host.takeEvents().isEmpty, "loading then the same items again: nothing changed in the end")
        try await host.send("onTappedTwiceQuickly")
        try await host.settle()
        let events = host.takeEvents()
        #expect(events.map(\.kind) == [.stateChanged])
        #expect(try host.state(LoadingState<[Item]>.self) == .loaded([.lamp]))
    }

    @Test("A ViewModel navigates through its Router, into another feature by RouteRequest")
    func viewModelNavigates() async throws {
        let host = try makeHost()
        try await host.send("onTappedCatalog")
        try await host.settle()
        try await host.send("onTappedItem", ["itemID": "i1"])
        try await host.send("onTappedOwner", ["userID": "u2"])
        #expect(host.routeIDs == ["home.main", "catalog.list", "catalog.detail", "profile.user"])
        #expect(host.stack[2].route.parameters == ["itemID": "i1"])
        #expect(try host.state(LoadingState<String>.self) == .loaded("u2"))
    }

    @Test("pop removes the top screen in one revision and calls its onDisappear")
    func popRemovesTop() async throws {
        let catalog = CatalogFeature()
        let host = try FeatureTestHost(features: [catalog], root: "catalog.list")
        try await host.settle()
        let detail = try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        try await host.settle()
        _ = host.takeEvents()
        try host.session.pop()
        #expect(host.takeSessionEvents() == [SessionEvent(revision: host.revision, change: .popped([detail.id]))])
        #expect(host.routeIDs == ["catalog.list"])
        #expect(catalog.lifecycle.calls == ["list.onAppear", "detail.onAppear", "detail.onDisappear"])
    }

    @Test("pop at the root is refused and changes nothing")
    func popAtRoot() throws {
        let host = try makeHost()
        let error = #expect(throws: NavigationError.self) { try host.session.pop() }
        #expect(error?.code == .cannotPopRoot)
        #expect(host.revision == 0)
        #expect(host.takeEvents().isEmpty)
    }

    @Test("popToRoot removes every screen above the root as one revision, topmost first")
    func popToRoot() async throws {
        let host = try makeHost()
        let list = try host.navigate(to: "catalog.list")
        let detail = try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        let profile = try host.navigate(to: "profile.user", ["userID": "u1"])
        try await host.settle()
        let before = host.revision
        let change = try #require(host.session.popToRoot())
        #expect(change.revision == before + 1)
        #expect(change.event.change == .popped([profile.id, detail.id, list.id]))
        #expect(host.routeIDs == ["home.main"])
        #expect(host.session.popToRoot() == nil, "already at the root: no change, no revision")
        #expect(host.revision == before + 1)
    }

    @Test("popTo removes the screens above the topmost one showing the route")
    func popTo() async throws {
        let host = try makeHost()
        try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        try host.navigate(to: "catalog.detail", ["itemID": "i2"])
        let top = try host.navigate(to: "profile.user", ["userID": "u1"])
        try await host.settle()
        let change = try #require(try host.session.popTo(RouteRequest(id: "catalog.detail")))
        #expect(change.event.change == .popped([top.id]))
        #expect(host.top.route.parameters == ["itemID": "i2"])
        try host.session.popTo(RouteRequest(id: "catalog.detail", parameters: ["itemID": "i1"]))
        #expect(host.routeIDs == ["home.main", "catalog.detail"])
        let error = #expect(throws: NavigationError.self) { try host.session.popTo(RouteRequest(id: "profile.user")) }
        #expect(error?.code == .routeNotOnStack)
    }

    @Test("replace swaps the whole stack, root included, as one revision")
    func replaceIsOneRevision() async throws {
        let catalog = CatalogFeature()
        let host = try FeatureTestHost(features: [HomeFeature(), catalog, ProfileFeature()], root: "home.main")
        try host.navigate(to: "catalog.detail", ["itemID": "i9"])
        try await host.settle()
        _ = host.takeEvents()
        let before = host.revision
        try host.session.replace(with: [
            RouteRequest(id: "catalog.list"), RouteRequest(id: "catalog.detail", parameters: ["itemID": "i1"]),
            RouteRequest(id: "profile.user", parameters: ["userID": "u1"]),
        ])
        let replaced = host.takeEvents()
        #expect(replaced.count == 1)
        #expect(replaced.first?.revision == before + 1)
        #expect(replaced.first?.kind == .replaced)
        #expect(host.routeIDs == ["catalog.list", "catalog.detail", "profile.user"])
        #expect(catalog.lifecycle.calls.prefix(2) == ["detail.onAppear", "detail.onDisappear"])
    }

    @Test("A replace with one unknown route is refused whole and changes nothing")
    func replaceRefusedWhole() throws {
        let host = try makeHost()
        try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        let before = host.session.snapshot
        let error = #expect(throws: NavigationError.self) {
            try host.session.replace(with: [RouteRequest(id: "catalog.list"), RouteRequest(id: "nowhere.main")])
        }
        #expect(error?.code == .routeNotFound)
        #expect(host.session.snapshot == before)
        let empty = #expect(throws: NavigationError.self) { try host.session.replace(with: []) }
        #expect(empty?.code == .emptyStack)
    }

    @Test("A deep link from a ViewModel replaces the stack in one revision")
    func deepLinkFromViewModel() async throws {
        let host = try makeHost()
        try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        try await host.settle()
        _ = host.takeEvents()
        try await host.send("onTappedDeepLink")
        try await host.settle()
        #expect(host.takeEvents().map(\.kind) == [.replaced, .stateChanged], "one change, then the new list loads")
        #expect(host.routeIDs == ["catalog.list", "catalog.detail"])
    }
}

@MainActor
@Suite("The modal layer")
struct ModalLayerTests {
    @Test("present shows a modal screen on top; intents go to it")
    func presentShowsModal() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try await host.settle()
        try await host.send("onTappedAdd")
        #expect(host.top.route.id == "catalog.editor")
        #expect(host.top.presentation == .modal)
        try await host.send("onChangedName", ["name": "Chair"])
        try await host.settle()
        #expect(host.top.state == ["name": "Chair", "isSaving": false])
    }

    @Test("dismiss removes the topmost modal and every screen pushed above it, in one revision")
    func dismissRemovesModalAndAbove() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature(), ProfileFeature()], root: "catalog.list")
        let modal = try host.session.present(RouteRequest(id: "catalog.editor"))
        let above = try host.navigate(to: "profile.user", ["userID": "u1"])
        try await host.settle()
        _ = host.takeEvents()
        try host.session.dismiss()
        let events = host.takeSessionEvents()
        #expect(events.map(\.change) == [.popped([above.id, modal.event.change.screenID!])])
        #expect(host.routeIDs == ["catalog.list"])
    }

    @Test("dismiss with no modal shown is refused")
    func dismissWithoutModal() throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        let error = #expect(throws: NavigationError.self) { try host.session.dismiss() }
        #expect(error?.code == .noModalPresented)
    }

    @Test("A ViewModel below the top closes the modal it presented; a modal a client presented it may not close")
    func closingOnlyWhatItOpened() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try await host.settle()
        let list = host.top.id
        try await host.send("onTappedAdd")
        #expect(host.routeIDs == ["catalog.list", "catalog.editor"])

        try await host.send("onTappedCloseEditor", to: list)
        #expect(host.routeIDs == ["catalog.list"], "the list opened the editor")

        try host.session.present(RouteRequest(id: "catalog.editor"))
        let refused = await #expect(throws: NavigationError.self) {
            try await host.send("onTappedCloseEditor", to: list)
        }
        #expect(refused?.code == .intentFailed)
        #expect(refused?.parameters["refusedNavigation"] == "ScreenNotOnTop")
        #expect(host.routeIDs == ["catalog.list", "catalog.editor"], "a client presented this one")
    }

    @Test("A screen opened from another's onAppear counts as that screen's: who opened what stays right, with no loop")
    func openingFromOnAppear() async throws {
        let host = try FeatureTestHost(features: [RelayFeature()], root: "relay.step")
        let below = try host.navigate(to: "relay.step").id
        let step = try host.navigate(to: "relay.step").id
        // The step opens a forward screen, whose onAppear opens another step at once.
        try await host.send("onTappedForward", to: step)
        try await host.settle()
        #expect(host.routeIDs == ["relay.step", "relay.step", "relay.step", "relay.forward", "relay.step"])

        // The forward screen opened the top step from its onAppear: it may pop it. The step below opened nothing
        // above it that is still there but the forward: refused.
        let forward = host.session.snapshot.stack[3].id
        let refused = await #expect(throws: NavigationError.self) { try await host.send("onTappedPop", to: below) }
        #expect(refused?.parameters["refusedNavigation"] == "ScreenNotOnTop")
        try await host.send("onTappedPop", to: forward)
        #expect(host.routeIDs == ["relay.step", "relay.step", "relay.step", "relay.forward"])

        // A screen that pops itself from its onAppear leaves its opener with no opener of its own (it was the top
        // when the pop ended): a pop from below then walks the openers and ends.
        try await host.send("onTappedPop", to: forward)
        try await host.send("onTappedGone", to: step)
        #expect(host.routeIDs == ["relay.step", "relay.step", "relay.step"])
        let stillRefused = await #expect(throws: NavigationError.self) {
            try await host.send("onTappedPop", to: below)
        }
        #expect(stillRefused?.parameters["refusedNavigation"] == "ScreenNotOnTop")
    }

    @Test("Who opened a screen is kept in the session's record: restored from it, the opener may still close it")
    func openerSurvivesARestore() async throws {
        let host = try FeatureTestHost(features: [RelayFeature()], root: "relay.step")
        let opener = try host.navigate(to: "relay.step").id
        try await host.send("onTappedStep", to: opener)
        try await host.settle()
        #expect(host.routeIDs == ["relay.step", "relay.step", "relay.step"])

        // Through the record's JSON, as the state folder keeps it, into a session restored from it.
        let saved = try JSONValueDecoder().decode(
            SessionRecord.self,
            from: JSONValueEncoder().encode(host.session.record)
        )
        #expect(saved.stack.map(\.openedBy) == [nil, nil, opener])
        let restored = try NavigationSession(
            restoring: saved,
            configuration: SessionConfiguration(root: RouteRequest(id: "relay.step")),
            catalog: host.catalog,
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        try await restored.send(IntentMessage(name: "onTappedPop"), to: opener)
        #expect(restored.routeIDs == ["relay.step", "relay.step"], "the opener closed the screen it opened")
    }

    @Test("A modal ViewModel closes itself through its Router")
    func modalDismissesItself() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try host.session.present(RouteRequest(id: "catalog.editor"))
        try await host.send("onTappedClose")
        #expect(host.routeIDs == ["catalog.list"])
    }
}

extension SessionEvent.Change {
    /// The ID of the screen a `pushed` change put on the stack.
    var screenID: ScreenID? {
        if case .pushed(let screen) = self { return screen.id }
        return nil
    }
}
