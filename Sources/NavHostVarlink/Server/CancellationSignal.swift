internal import Synchronization

/// A one-shot signal that cancels work started under it: ``run(_:)`` cancels its body once ``fire()`` is called.
///
/// A connection uses one to end a running `more` call when the server shuts down, without cancelling the
/// connection's other work.
final class CancellationSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Whether ``fire()`` has been called.
    var isFired: Bool { state.withLock { $0.fired } }

    /// Fires the signal: every body running under ``run(_:)`` is cancelled, and so is every later one at once.
    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `body`, cancelling it if the signal fires before it ends.
    func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                await self.wait()
                return nil
            }
            while let result = try await group.next() {
                group.cancelAll()
                if let value = result { return value }
            }
            throw CancellationError()
        }
    }

    /// Returns when the signal fires or the task is cancelled.
    private func wait() async {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
