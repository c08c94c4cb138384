/// How far a call got in the stretch of the main actor that started it: finished there, or suspended with the rest of
/// its work to await.
///
/// Most calls never suspend (an intent whose ViewModel does not await, a change already durable). A caller that can
/// use the answer at once, as the Varlink connection does in the read that brought the call, starts the call with a
/// `start…` function and needs no task for it; one that is in a task anyway awaits ``value`` (each `async` function
/// that makes a call is its `start…` twin followed by that).
///
/// - Important: A suspended call must be finished: await its rest. What it holds until then (an intent's time
///   limit, the link that cancels the intent with its caller) is let go only there.
public enum CallProgress<Value: Sendable>: Sendable {
    /// The call finished in the stretch that started it.
    case finished(Value)
    /// The call waits for something; this finishes it, in a task.
    case suspended(@MainActor @Sendable () async throws(NavigationError) -> Value)

    /// The call's result, once it finished.
    @MainActor
    public var value: Value {
        get async throws(NavigationError) {
            switch self {
            case .finished(let value): value
            case .suspended(let rest): try await rest()
            }
        }
    }

    /// The progress of a call that goes on with `transform` once this one finished.
    @MainActor
    func map<Other: Sendable>(
        _ transform: @escaping @MainActor @Sendable (Value) throws(NavigationError) -> Other
    ) throws(NavigationError) -> CallProgress<Other> {
        switch self {
        case .finished(let value):
            return .finished(try transform(value))
        case .suspended(let rest):
            return .suspended { () async throws(NavigationError) -> Other in try transform(try await rest()) }
        }
    }
}
