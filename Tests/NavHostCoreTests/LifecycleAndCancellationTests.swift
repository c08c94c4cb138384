import NavHostCore
import NavHostKit
import NavHostTesting
import Testing

@MainActor
@Suite("Screen lifecycle and cancellation")
struct LifecycleAndCancellationTests {
    @Test("Popping a screen mid-intent cancels its use case, answers ScreenClosed, and reports nothing after")
    func popCancelsIntentInFlight() async throws {
        let save = ControlledSaveItemUseCase()
        let host = try FeatureTestHost(features: [CatalogFeature(saveItem: save)], root: "catalog.list")
        try await host.settle()
        let editor = try host.session.present(RouteRequest(id: "catalog.editor"))
        guard case .pushed(let screen) = editor.event.change else { Issue.record("not pushed"); return }
        let sending = Task { @MainActor in try await host.send("onTappedSave", to: screen.id) }
        try await host.waitForRevision(editor.revision + 1)  // isSaving = true
        _ = host.takeEvents()

        try host.session.dismiss()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed)
        #expect(save.control.cancellations.count == 1, "the use case saw the cancellation")

        await save.control.answerNext(with: .success(()))
        try await host.settle()
        #expect(host.takeEvents().map(\.kind) == [.popped], "no state and no navigation from the closed screen")
        #expect(host.routeIDs == ["catalog.list"])
    }

    @Test("onAppear runs when a screen is pushed and onDisappear when it leaves, in stack order")
    func lifecycleOrder() async throws {
        let catalog = CatalogFeature()
        let host = try FeatureTestHost(features: [catalog], root: "catalog.list")
        try host.navigate(to: "catalog.detail", ["itemID": "a"])
        try host.navigate(to: "catalog.detail", ["itemID": "b"])
        try await host.settle()
        host.session.popToRoot()
        #expect(
            catalog.lifecycle.calls == [
                "list.onAppear", "detail.onAppear", "detail.onAppear", "detail.onDisappear", "detail.onDisappear",
            ]
        )
    }

    @Test("A use case awaiting I/O does not block intents to other screens")
    func suspendedUseCaseDoesNotBlock() async throws {
        let save = ControlledSaveItemUseCase()
        let host = try FeatureTestHost(features: [CatalogFeature(saveItem: save)], root: "catalog.list")
        try await host.settle()
        let list = host.top.id
        let editor = try host.session.present(RouteRequest(id: "catalog.editor"))
        let saving = Task { @MainActor in try await host.send("onTappedSave") }
        try await host.waitForRevision(editor.revision + 1)  // the editor shows isSaving: its use case waits

        try await host.send("onTappedItem", ["itemID": "i1"], to: list)
        #expect(host.top.route.id == "catalog.detail", "the list's intent went through while the save waits")

        // The saved editor then dismisses itself, which would close the detail above it, opened by the list: refused.
        await save.control.answerNext(with: .success(()))
        let refused = await #expect(throws: NavigationError.self) { try await saving.value }
        #expect(refused?.parameters["refusedNavigation"] == "ScreenNotOnTop")
        #expect(host.routeIDs == ["catalog.list", "catalog.editor", "catalog.detail"])
    }

    @Test("An intent that a ViewModel answers by closing its own screen succeeds")
    func selfClosingIntentSucceeds() async throws {
        let save = ControlledSaveItemUseCase()
        let host = try FeatureTestHost(features: [CatalogFeature(saveItem: save)], root: "catalog.list")
        try host.session.present(RouteRequest(id: "catalog.editor"))
        let saving = Task { @MainActor in try await host.send("onTappedSave") }
        await save.control.answerNext(with: .success(()))
        try await saving.value
        #expect(host.routeIDs == ["catalog.list"])
    }

    @Test("A Router kept by a popped screen's ViewModel can no longer move the stack")
    func routerOfPoppedScreenIsIgnored() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try await host.settle()
        let detail = try host.navigate(to: "catalog.detail", ["itemID": "i1"])
        let router = Router<CatalogRoute>(handler: host.session, screen: detail.id)
        try host.session.pop()
        let revision = host.revision
        #expect(router.navigate(to: .editor) == false)
        #expect(host.revision == revision)
    }

    @Test("A Router kept by a ViewModel a reload replaced can no longer move the stack, from whatever task")
    func routerOfReplacedViewModelIsIgnored() async throws {
        let host = try FeatureTestHost(features: [RelayFeature()], root: "relay.step")
        try host.navigate(to: "relay.step")
        let kept = try #require(RelayStepViewModel.latestRouter)
        // The reload's rebuild: the same screen IDs, new ViewModels.
        try #require(host.session.rebuildScreens(showing: ["relay.step"]) != nil)
        let fresh = try #require(RelayStepViewModel.latestRouter)
        try await host.settle()
        let revision = host.revision

        // Work that outlives the old ViewModel runs outside its screen's tasks: nothing but the Router tells whose.
        let moved = await Task.detached { await kept.navigate(to: .step) }.value
        #expect(moved == false)
        #expect(host.revision == revision)
        #expect(host.routeIDs == ["relay.step", "relay.step"])
        #expect(fresh.navigate(to: .step), "the new ViewModel's Router navigates")
        #expect(host.routeIDs == ["relay.step", "relay.step", "relay.step"])
    }
}

@MainActor
@Suite("The intent time limit")
struct IntentTimeLimitTests {
    @Test("A use case that never returns times out: IntentTimedOut, work cancelled, the screen shows an error")
    func neverReturningUseCaseTimesOut() async throws {
        let save = ControlledSaveItemUseCase()
        let host = try FeatureTestHost(features: [CatalogFeature(saveItem: save)], root: "catalog.list")
        try await host.settle()
        let editor = try host.session.present(RouteRequest(id: "catalog.editor"))
        try expectCurrentText(of: host)
        let sending = Task { @MainActor in try await host.send("onTappedSave") }
        try await host.waitForRevision(editor.revision + 1)
        _ = host.takeEvents()
        try expectCurrentText(of: host)

        await host.clock.advance(by: .seconds(30))
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .intentTimedOut)
        #expect(error?.parameters == ["screen": .string(host.top.id.rawValue), "intent": "onTappedSave"])
        #expect(save.control.cancellations.count == 1)
        try await host.settle()
        #expect(host.top.error == "onTappedSave did not finish within 30.0 seconds")
        #expect(host.takeEvents().map(\.kind).contains(.errorChanged))
        try expectCurrentText(of: host)

        // The screen is not wedged: the next intent is handled, and success clears the error.
        try await host.send("onChangedName", ["name": "Chair"])
        try await host.settle()
        #expect(host.top.error == nil)
        #expect(host.takeEvents().map(\.kind).contains(.errorChanged))
        try expectCurrentText(of: host)
    }

    @Test("An intent that ran out of time moves the stack no more: the navigation it asks for later is dropped")
    func timedOutIntentCannotNavigate() async throws {
        let save = ControlledSaveItemUseCase()
        let host = try FeatureTestHost(features: [CatalogFeature(saveItem: save)], root: "catalog.list")
        try await host.settle()
        let editor = try host.session.present(RouteRequest(id: "catalog.editor"))
        let sending = Task { @MainActor in try await host.send("onTappedSave") }
        try await host.waitForRevision(editor.revision + 1)
        await host.clock.advance(by: .seconds(30))
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .intentTimedOut)

        // The use case returns after all, ignoring the cancellation, and the ViewModel dismisses its editor, as
        // after a save in time: the client was answered that the intent did not finish, so the stack stays.
        await save.control.answerNext(with: .success(()))
        // The ViewModel's work after the time-out is no screen's work any more, which `settle` does not wait for: it is
        // awaited for 30 s of real time at most (a count of 200 naps, as it was, allowed about 1 s, which a loaded
        // machine can take before the main actor runs it).
        let deadline = ContinuousClock.now + .seconds(30)
        while host.top.state["isSaving"] != false, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await host.settle()
        #expect(host.top.state["isSaving"] == false, "the ViewModel ran on")
        #expect(host.routeIDs == ["catalog.list", "catalog.editor"])
    }

    /// The JSON text the top screen keeps for `Send` replies is its snapshot as it is now, never one before its state
    /// or error changed.
    private func expectCurrentText(of host: FeatureTestHost) throws {
        var expected: [UInt8] = []
        try host.session.screenSnapshot(host.top.id).jsonValue.appendSerializedBytes(to: &expected)
        let text = try host.session.serializedScreenSnapshot(host.top.id)
        #expect(text.map { String(decoding: $0, as: UTF8.self) } == String(decoding: expected, as: UTF8.self))
    }

    @Test("An intent that finishes within the limit is not affected by the timer")
    func fastIntentUnaffected() async throws {
        let host = try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
        try await host.settle()
        try await host.send("onTappedRetry")
        await host.clock.advance(by: .seconds(60))
        try await host.settle()
        #expect(host.top.error == nil)
    }
}
