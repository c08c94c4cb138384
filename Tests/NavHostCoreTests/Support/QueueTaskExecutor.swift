import Dispatch

/// A task executor that runs its jobs on a serial dispatch queue, the way the Varlink server runs a connection's
/// tasks on its channel's event loop.
///
/// A test that sends intents from a task preferring it calls into the main actor the way the daemon's connections
/// do: such a task's every `await`, even one on the actor it is already on, gives the main actor up, so other
/// main-actor jobs run in between.
final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "navhost.test.task-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// How a call given a time limit ended.
enum BoundedOutcome: Sendable {
    case finished
    case failed(any Error)
    case timedOut

    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}

/// Runs `operation` in a task of its own that prefers `executor`, and waits at most `limit` for it.
///
/// The task is left behind when it does not finish: a call that never returns cannot be cancelled into returning,
/// and the test must fail rather than hang.
@MainActor
func run(
    preferring executor: any TaskExecutor,
    within limit: Duration,
    _ operation: @escaping @MainActor @Sendable () async throws -> Void
) async -> BoundedOutcome {
    let (outcomes, sink) = AsyncStream.makeStream(of: BoundedOutcome.self)
    // Like a Varlink handler: the task runs on `executor` and hops to the main actor for the call.
    Task(executorPreference: executor) {
        let outcome: BoundedOutcome
        do {
            try await operation()
            outcome = .finished
        } catch {
            outcome = .failed(error)
        }
        sink.yield(outcome)
    }
    let timer = Task {
        try? await Task.sleep(for: limit)
        sink.yield(.timedOut)
    }
    defer { timer.cancel() }
    var iterator = outcomes.makeAsyncIterator()
    return await iterator.next() ?? .timedOut
}
