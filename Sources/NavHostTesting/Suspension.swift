/// The answer to a suspended use case, given by the test when it chooses.
///
/// A ViewModel's `.loading` state only lasts while its use case is suspended; a stub built on a `Suspension` stays
/// suspended until the test calls `resume`, so the test can look at the state in between without sleeping:
///
/// ```swift
/// let suspension = Suspension<[Product]>()
/// let viewModel = ProductsViewModel(getProductsUseCase: GetProductsUseCaseStub { try await suspension.value() })
/// let appearing = Task { await viewModel.onAppear() }
/// await suspension.untilCalled()
/// #expect(viewModel.state == .loading)
/// suspension.resume(returning: [.fixture()])
/// await appearing.value
/// ```
///
/// - Since: NavHostKit 2.2.0.
public final class Suspension<Value: Sendable>: Sendable {
    private let calls: AsyncStream<Void>
    private let callsContinuation: AsyncStream<Void>.Continuation
    private let answers: AsyncStream<Result<Value, any Error>>
    private let answersContinuation: AsyncStream<Result<Value, any Error>>.Continuation

    public init() {
        (calls, callsContinuation) = AsyncStream.makeStream()
        (answers, answersContinuation) = AsyncStream.makeStream()
    }

    /// For the stub: signals the call, then waits for the test's answer; throws `CancellationError` when the wait is
    /// cancelled.
    public func value() async throws -> Value {
        callsContinuation.yield()
        for await answer in answers {
            return try answer.get()
        }
        throw CancellationError()
    }

    /// For the test: returns once the stub has been called (at once if it already was).
    public func untilCalled() async {
        for await _ in calls { return }
    }

    /// Lets the suspended call return `value`.
    public func resume(returning value: Value) {
        answersContinuation.yield(.success(value))
    }

    /// Lets the suspended call throw `error`.
    public func resume(throwing error: any Error) {
        answersContinuation.yield(.failure(error))
    }
}
