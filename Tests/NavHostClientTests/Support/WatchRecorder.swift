import IntegrationHarness
import NavHostClient
import Synchronization

/// Iterates a watch in a task of its own and keeps every update, so that a test can wait for the one it expects
/// (bounded by a timeout) while it drives the daemon. The recording task holds the recorder until the watch ends or
/// ``cancel()`` is called.
final class WatchRecorder: Sendable {
    private let updates = Mutex<[NavHostWatch.Update]>([])
    private let ending = Mutex<(any Error)??>(nil)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ watch: NavHostWatch) {
        let recorder = Task { [self] in await record(watch) }
        task.withLock { $0 = recorder }
    }

    private func record(_ watch: NavHostWatch) async {
        do {
            for try await update in watch { updates.withLock { $0.append(update) } }
            ending.withLock { $0 = .some(nil) }
        } catch {
            ending.withLock { $0 = .some(error) }
        }
    }

    /// Every update so far.
    var received: [NavHostWatch.Update] { updates.withLock { $0 } }

    /// Waits until an update matches `predicate`, and returns it.
    @discardableResult
    func waitFor(
        _ what: String,
        within limit: Duration = .seconds(30),
        _ predicate: (NavHostWatch.Update) -> Bool
    ) async throws -> NavHostWatch.Update {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let match = received.first(where: predicate) { return match }
            if let ended = ending.withLock({ $0 }) {
                throw TimedOut(what: "\(what); the watch ended (\(ended.map { "\($0)" } ?? "cleanly"))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(what: "\(what); the watch delivered \(received)")
    }

    /// Waits for the watch to end, and returns the error it ended with, if any.
    func waitForEnd(within limit: Duration = .seconds(30)) async throws -> (any Error)? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let ended = ending.withLock({ $0 }) { return ended }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(what: "the watch to end")
    }

    /// Stops iterating.
    func cancel() {
        task.withLock { $0?.cancel() }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }
}
