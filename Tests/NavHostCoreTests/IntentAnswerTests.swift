import NavHostCore
import NavHostKit
import NavHostTesting
import Testing

/// The daemon sends every intent from a Varlink connection's task, which prefers its channel's event loop. Every
/// `await` of such a task on the main actor gives the main actor up, even one that stays on it, so other
/// main-actor jobs (the intent's own work, the screen's closing) run in between: the intent must be answered
/// wherever they fall.
@MainActor
@Suite("Intents sent from a task with an executor preference")
struct IntentAnswerTests {
    @Test("An intent whose screen closes is answered wherever the closing falls among the sender's turns")
    func answeredWhereverTheClosingFalls() async throws {
        let host = try FeatureTestHost(features: [InterleavingFeature()], root: "interleaving.main")
        try await host.settle()
        let executor = QueueTaskExecutor()
        for turns in 1...12 {
            let screen = try host.navigate(to: "interleaving.main").id
            let outcome = await run(preferring: executor, within: .seconds(10)) {
                try await host.send("onTappedClose", ["turns": .int(Int64(turns))], to: screen)
            }
            try #require(outcome.isFinished, "the screen closes after \(turns) turns of the main actor")
            #expect(host.routeIDs == ["interleaving.main"])
        }
    }

    @Test("An intent sent as its screen closes runs on the open screen, is cancelled with it, or answers it is gone")
    func neverRunsOnAClosedScreen() async throws {
        let feature = InterleavingFeature()
        let host = try FeatureTestHost(features: [feature], root: "interleaving.main")
        try await host.settle()
        let executor = QueueTaskExecutor()
        for turns in 1...12 {
            let screen = try host.navigate(to: "interleaving.main").id
            let strays = feature.record.uncancelledIntentsAfterDisappearing
            let outcome = await run(preferring: executor, within: .seconds(10)) {
                InterleavingViewModel.takeTurns(turns) { _ = try? host.session.pop() }
                try await host.send("onTappedLoad", to: screen)
            }
            switch outcome {
            case .finished:
                break
            case .failed(let error as NavigationError) where [.screenClosed, .screenNotFound].contains(error.code):
                break
            case .failed(let error):
                Issue.record("the pop after \(turns) turns: \(error)")
            case .timedOut:
                Issue.record("the pop after \(turns) turns: no answer")
            }
            #expect(
                feature.record.uncancelledIntentsAfterDisappearing == strays,
                "the pop after \(turns) turns: the ViewModel got the intent after its onDisappear, not cancelled"
            )
            #expect(host.routeIDs == ["interleaving.main"])
        }
    }

    @Test("An intent whose work suspends off the main actor is answered, a thousand times in a row")
    func answeredAfterWorkOffTheMainActor() async throws {
        let host = try FeatureTestHost(features: [InterleavingFeature()], root: "interleaving.main")
        try await host.settle()
        let executor = QueueTaskExecutor()
        for call in 0..<1_000 {
            let outcome = await run(preferring: executor, within: .seconds(10)) {
                try await host.send("onTappedLoad")
            }
            try #require(outcome.isFinished, "call \(call)")
        }
    }
}
