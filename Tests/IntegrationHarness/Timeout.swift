import Synchronization

/// The test gave up waiting: something that should have happened did not.
package struct TimedOut: Error, CustomStringConvertible {
    package var what: String
    package var description: String { "timed out waiting for \(what)" }
    package init(what: String) { self.what = what }
}

/// Runs `body`, failing with ``TimedOut`` if it has not finished after `limit`. Bounds a test; never synchronizes it.
///
/// The body and the timer run in tasks of their own, and whichever ends first answers: a body that ignores its
/// cancellation (a blocking wait off the cooperative pool, a `Task.value`) is left to end by itself, where a task
/// group, which waits for all its children, would hold the test, and one of the suite's parallel slots, for good.
package func withTimeout<Value: Sendable>(
    _ limit: Duration = .seconds(10),
    _ what: String,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = TimeoutRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, limit: limit, what: what, body: body)
        }
    } onCancel: {
        race.finish(with: .failure(CancellationError()))
    }
}

/// The body and the timer of one ``withTimeout(_:_:_:)``: the first to end resumes the caller and cancels the other.
private final class TimeoutRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
        /// The outcome when it came before the continuation (the caller was cancelled at once).
        var early: Result<Value, any Error>?
    }

    private let state = Mutex(State())

    func start(
        _ continuation: CheckedContinuation<Value, any Error>,
        limit: Duration,
        what: String,
        body: @escaping @Sendable () async throws -> Value
    ) {
        if let early = state.withLock({ state -> Result<Value, any Error>? in
            if state.early == nil { state.continuation = continuation }
            return state.early
        }) {
            continuation.resume(with: early)
            return
        }
        let work = Task {
            do {
                finish(with: .success(try await body()))
            } catch {
                finish(with: .failure(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            finish(with: .failure(TimedOut(what: what)))
        }
        let finished = state.withLock { state in
            state.tasks = [work, timer]
            return state.continuation == nil
        }
        if finished {
            work.cancel()
            timer.cancel()
        }
    }

    /// Resumes the caller with `result` unless something ended first, and cancels both tasks.
    func finish(with result: Result<Value, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            defer {
                state.continuation = nil
                state.tasks = []
            }
            if state.continuation == nil, state.tasks.isEmpty, state.early == nil { state.early = result }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}

/// Polls `condition` every 25 ms until it holds, for up to `limit` of the clock; whether it did.
///
/// The limit is generous on purpose: it only bounds a test whose condition never comes, and a loaded two-core
/// machine can take seconds over what an idle one does in milliseconds.
package func pollUntil(
    within limit: Duration = .seconds(30),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    repeat {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(25))
    } while ContinuousClock.now < deadline
    return try await condition()
}
