import Foundation
import NavHostKit
import NavHostTesting
import Testing

@Suite("The feature test kit's own parts: the manual clock, the seeded random source, and the host's release")
struct TestKitTests {
    /// A plugin's test need not be `@MainActor`: the host it lets go on another thread frees its session on the main
    /// actor (`isolated deinit`), where a session must be freed (a debug build traps otherwise).
    @Test("A host let go off the main actor is freed, on the main actor")
    func hostLetGoOffTheMainActorIsFreed() async {
        await #expect(processExitsWith: .success) {
            let freed = try await Task.detached {
                weak var host: FeatureTestHost?
                do {
                    // Its only reference goes at the end of this block, on a pool thread.
                    let held = try await MainActor.run {
                        try FeatureTestHost(features: [CatalogFeature()], root: "catalog.list")
                    }
                    host = held
                }
                let deadline = ContinuousClock.now + .seconds(30)
                while host != nil, ContinuousClock.now < deadline { await MainActor.run {} }
                return host == nil
            }.value
            if !freed { exit(EXIT_FAILURE) }
        }
    }

    @Test("A seeded source gives the same numbers for the same seed, and others for another")
    func seededSourceRepeats() {
        let first = SeededRandomSource(seed: 42)
        let again = SeededRandomSource(seed: 42)
        let other = SeededRandomSource(seed: 43)
        let drawn = (0..<8).map { _ in first.next() }
        #expect(drawn == (0..<8).map { _ in again.next() })
        #expect(drawn != (0..<8).map { _ in other.next() })
        #expect(Set(drawn).count == 8, "no repeats in a short run")
    }

    @Test("The standard library draws through a source's generator")
    func generatorDrawsFromTheSource() {
        var first = SeededRandomSource(seed: 7).generator
        var again = SeededRandomSource(seed: 7).generator
        let rolls = (0..<20).map { _ in Int.random(in: 1...6, using: &first) }
        #expect(rolls == (0..<20).map { _ in Int.random(in: 1...6, using: &again) })
        #expect(rolls.allSatisfy { (1...6).contains($0) })
    }

    @Test("A sleeper on the manual clock wakes only when the clock is advanced past its deadline")
    func manualClockWakesSleepers() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1, "4 s of 5: still asleep")
        await clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == ManualClock.Instant(offset: .seconds(5)))
    }

    @Test("A cancelled sleeper on the manual clock throws CancellationError and leaves nothing behind")
    func manualClockCancellation() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}
