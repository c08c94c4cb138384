/// The test gave up waiting: something that should have happened did not.
package struct TimedOut: Error, CustomStringConvertible {
    package var what: String
    package var description: String { "timed out waiting for \(what)" }
    package init(what: String) { self.what = what }
}

/// Runs `body`, failing with ``TimedOut`` if it has not finished after `limit`. Bounds a test; never synchronizes it.
package func withTimeout<Value: Sendable>(
    _ limit: Duration = .seconds(10),
    _ what: String,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut(what: what) }
        return value
    }
}

/// Polls `condition` every 25 ms until it holds, for up to ten seconds; whether it did.
package func pollUntil(_ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<400 {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(25))
    }
    return false
}
