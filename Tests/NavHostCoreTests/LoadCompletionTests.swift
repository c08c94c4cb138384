import NavHostKit
import Testing

/// The SDK's `LoadCompletion`, alone: what an intent that arrives while its screen loads waits for.
@MainActor
@Suite("Waiting for a screen's load", .timeLimit(.minutes(1)))
struct LoadCompletionTests {
    /// A screen's state, as a ViewModel keeps it.
    private final class Screen {
        var state: LoadingState<String> = .idle
    }

    @Test("value(of:) returns a loaded value at once, and throws NotLoaded for a screen that has nothing loaded")
    func notLoading() async throws {
        let completion = LoadCompletion()
        let screen = Screen()
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await completion.value(of: screen.state) }
        screen.state = .error("no")
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await completion.value(of: screen.state) }
        screen.state = .loaded("list")
        #expect(try await completion.value(of: screen.state) == "list")
    }

    @Test("A waiter goes on at the signal that ends the load, and waits again for a load started before it resumed")
    func waitsWhileLoading() async throws {
        let completion = LoadCompletion()
        let screen = Screen()
        screen.state = .loading
        let waiter = Task { try await completion.value(of: screen.state) }
        await Task.yield()

        // The first load fails, and a retry starts another before the waiter runs again.
        screen.state = .error("no")
        completion.signal()
        screen.state = .loading
        await Task.yield()
        screen.state = .loaded("list")
        completion.signal()

        #expect(try await waiter.value == "list")
    }

    @Test("A waiter whose task is cancelled stops waiting at once and throws CancellationError")
    func cancelledWaiter() async throws {
        let completion = LoadCompletion()
        let screen = Screen()
        screen.state = .loading
        let waiter = Task { try await completion.value(of: screen.state) }
        await Task.yield()

        waiter.cancel()

        await #expect(throws: CancellationError.self) { try await waiter.value }
        // A later signal finds nothing left to resume.
        completion.signal()
        let cancelledBefore = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await completion.wait(while: true)
        }
        await #expect(throws: CancellationError.self) { try await cancelledBefore.value }
    }
}
