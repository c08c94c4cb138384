import Logging
import NavHostKit
import Testing

@testable import NavHostCore

/// The waits for store writes the daemon's stop ends (``StoreWriteWaits``): those under way once its grace has passed,
/// and any that begins after, at once. Over real screen tasks, each with a write under way that never ends.
@MainActor
@Suite("The waits for store writes the daemon's stop ends")
struct StoreWriteWaitsTests {
    /// A task of a screen of its own whose work has one store write under way, which nothing ends.
    func taskWritingForGood(_ id: String) throws -> ScreenTask {
        let screen = Screen(
            id: ScreenID(id),
            route: RouteRequest(id: "profile.user", parameters: ["userID": .string(id)]),
            presentation: .push,
            model: ScreenModel.of(ProfileViewModel(userID: id))
        )
        let task = ScreenTask(screen: screen, context: nil)
        try #require(task.beginStoreWrite() == .counted, "the write is counted")
        return task
    }

    @Test("A wait that begins after the stop's grace ended the waits ends at once, its write still under way")
    func waitBegunAfterTheGraceEndsAtOnce() async throws {
        let waits = StoreWriteWaits(logger: Logger(label: "test"))
        let withinTheGrace = try taskWritingForGood("s1")
        let afterTheGrace = try taskWritingForGood("s2")
        waits.endAll(after: .zero)
        // Begun before the grace's task runs (it runs on the main actor, which this holds until the wait suspends):
        // the grace's end ends it, so the grace has passed once it returns.
        await waits.storeWritesEnded(of: withinTheGrace, before: "a test's first wait")
        #expect(withinTheGrace.hasStoreWritesUnderWay, "the first wait ended with the grace, its write still under way")
        let ended = WaitEnded()
        let waiting = Task { @MainActor in
            await waits.storeWritesEnded(of: afterTheGrace, before: "a test's second wait")
            ended.value = true
        }
        // Bounded, for the failure's sake only: without the end at once, the wait lasts as long as the write.
        let deadline = ContinuousClock.now + .seconds(30)
        while !ended.value && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(ended.value, "the wait begun after the grace ended with the write still under way")
        #expect(afterTheGrace.hasStoreWritesUnderWay)
        if !ended.value { afterTheGrace.endWaitForStoreWritesAsTheDaemonStops() }
        await waiting.value
    }
}

/// Whether a wait returned, set by the task that waited.
@MainActor
private final class WaitEnded {
    var value = false
}
