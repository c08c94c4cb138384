import Synchronization

/// How long navctl waits for the daemon, and whether that time has passed.
final class Deadline: Sendable {
    private let seconds: Double
    private let passed = Mutex(false)

    init(seconds: Double) {
        self.seconds = seconds
    }

    /// Whether the time ran out (and the connection was closed because of it).
    var hasPassed: Bool { passed.withLock { $0 } }

    var description: String { ConnectionOptions.describe(seconds: seconds) }

    /// Runs `expire` once the time has run out, unless the task returned is cancelled first; `nil` when there is no
    /// time limit.
    func watch(expire: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        guard seconds > 0 else { return nil }
        return Task {
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            passed.withLock { $0 = true }
            await expire()
        }
    }
}
