/// How far the handler of a call got in the stretch of the main actor that started it: see
/// ``VarlinkInterfaceImplementation/handleStarting(_:_:)``.
public enum VarlinkCallStart: Sendable {
    /// The handler finished: these are the reply's output parameters.
    case finished(VarlinkSerializedParameters)
    /// The handler waits for something: this finishes it, in a task, and returns the output parameters.
    case suspended(@MainActor @Sendable () async throws -> VarlinkSerializedParameters)

    /// The output parameters, once the handler finished.
    @MainActor
    public var parameters: VarlinkSerializedParameters {
        get async throws {
            switch self {
            case .finished(let parameters): parameters
            case .suspended(let rest): try await rest()
            }
        }
    }
}
