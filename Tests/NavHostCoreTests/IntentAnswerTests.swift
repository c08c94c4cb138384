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
            try #require(outcome == .finished, "the screen closes after \(turns) turns of the main actor")
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
            try #require(outcome == .finished, "call \(call)")
        }
    }
}
