/// Calls that take turns: each runs its body once every call that came before it is done, first come first served.
///
/// An actor's change that suspends — a file written, then the change made — must not be seen half done by another
/// such change, while the actor's other calls go on meanwhile. The actor keeps one `Turns` per kind of change (or per
/// name) and runs each change in ``take(isolation:_:)``:
///
/// ```swift
/// try await listChanges.take {
///     try await openedFile.save(list)
/// }
/// ```
///
/// Not `Sendable`: it belongs to the actor that keeps it, and is used from that actor only.
package final class Turns {
    /// Whether a call has the turn, whether or not others wait for it.
    package private(set) var isTaken = false
    /// The calls waiting for the turn, in the order they came.
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init() {}

    /// Runs `body` once no call that came before this one holds or waits for the turn, and hands the turn on to the
    /// next waiting call when `body` returns or throws.
    package func take<Result, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        if isTaken {
            await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in waiting.append(turn) }
        } else {
            isTaken = true
        }
        defer {
            if waiting.isEmpty {
                isTaken = false
            } else {
                waiting.removeFirst().resume()
            }
        }
        return try await body()
    }
}
