import Synchronization

/// What a use case's test double answers, written by the test: call `n` (counting from 0) gets `answer(n)`. It keeps
/// every call's input, so the test can check how often its double was called, and with what.
///
/// ```swift
/// final class GetProductUseCaseMock: GetProductUseCaseProtocol, ScriptedUseCase {
///     let answers: ScriptedAnswers<String, Product>
///     init(_ answers: ScriptedAnswers<String, Product>) { self.answers = answers }
///     func execute(productID: String) async throws -> Product { try await answers.answer(productID) }
/// }
///
/// let mock = GetProductUseCaseMock.returning(.fixture())       // or .failing(), .suspended(suspension)
/// let flaky = GetProductUseCaseMock { call in call == 0 ? throw TestError.unavailable : .fixture() }
/// #expect(mock.answers.inputs == ["p3"])
/// ```
///
/// - Since: NavHostKit 2.2.0.
public final class ScriptedAnswers<Input: Sendable, Output: Sendable>: Sendable {
    private let script: @Sendable (Int) async throws -> Output
    private let received = Mutex<[Input]>([])

    /// Answers call `n` (from 0) with `script(n)`.
    public init(_ script: @escaping @Sendable (_ call: Int) async throws -> Output) {
        self.script = script
    }

    /// Every call answers `value`.
    public static func returning(_ value: Output) -> ScriptedAnswers {
        ScriptedAnswers { _ in value }
    }

    /// Every call throws `error`.
    public static func failing(_ error: any Error = TestError.unavailable) -> ScriptedAnswers {
        ScriptedAnswers { _ in throw error }
    }

    /// Every call waits for the test's answer through `suspension`.
    public static func suspended(_ suspension: Suspension<Output>) -> ScriptedAnswers {
        ScriptedAnswers { _ in try await suspension.value() }
    }

    /// The inputs of the calls so far, oldest first.
    public var inputs: [Input] { received.withLock { $0 } }

    /// How many calls there were.
    public var callCount: Int { received.withLock { $0.count } }

    /// For the double: keeps `input`, then answers as the script says for this call.
    public func answer(_ input: Input) async throws -> Output {
        let call = received.withLock { inputs in
            inputs.append(input)
            return inputs.count - 1
        }
        return try await script(call)
    }
}

/// A test double that answers from ``ScriptedAnswers``; it gets `returning`, `failing`, `suspended` and a scripted
/// initializer for free.
///
/// - Since: NavHostKit 2.2.0.
public protocol ScriptedUseCase {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    /// A double that answers as `answers` say.
    init(_ answers: ScriptedAnswers<Input, Output>)
}

extension ScriptedUseCase {
    /// A double whose call `n` (from 0) answers `script(n)`.
    public init(_ script: @escaping @Sendable (_ call: Int) async throws -> Output) {
        self.init(ScriptedAnswers(script))
    }

    /// A double whose every call answers `value`.
    public static func returning(_ value: Output) -> Self {
        Self(ScriptedAnswers.returning(value))
    }

    /// A double whose every call throws `error`.
    public static func failing(_ error: any Error = TestError.unavailable) -> Self {
        Self(ScriptedAnswers.failing(error))
    }

    /// A double whose every call waits for the test's answer through `suspension`.
    public static func suspended(_ suspension: Suspension<Output>) -> Self {
        Self(ScriptedAnswers.suspended(suspension))
    }
}
