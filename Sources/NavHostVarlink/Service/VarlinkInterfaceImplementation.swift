public import NavHostJSON

/// An interface definition together with the handlers that implement its methods.
///
/// Build one per interface and add it to a ``VarlinkService``:
///
/// ```swift
/// var ftl = try VarlinkInterfaceImplementation(description: ftlDefinition)
/// ftl.handle("Jump") { request in
///     try await drive.jump(request.parameters)
///     return [:]
/// }
/// ftl.handleStreaming("Monitor", requiresMore: true) { request, replies in
///     for await condition in drive.conditions {
///         try await replies.send(["condition": condition.json])
///     }
///     return ["condition": drive.condition.json]
/// }
/// service.add(ftl)
/// ```
///
/// A method the definition declares but no handler implements is answered with
/// `org.varlink.service.MethodNotImplemented`.
public struct VarlinkInterfaceImplementation: Sendable {
    /// A single-reply handler: returns the output parameters, or throws.
    ///
    /// It runs on the isolation its connection runs calls on (see
    /// ``VarlinkServerConfiguration/runsHandlersOnMainActor``), so a handler on the main actor's loop calls the main
    /// actor without a hop.
    public typealias Handler = nonisolated(nonsending) @Sendable (VarlinkRequest) async throws -> JSONObject
    /// A streaming handler: sends replies with `continues` through the writer, then returns the final reply.
    public typealias StreamingHandler =
        nonisolated(nonsending) @Sendable (VarlinkRequest, VarlinkReplyWriter) async throws -> JSONObject

    /// A single-reply handler that returns its output parameters as JSON text: see ``VarlinkSerializedParameters``.
    public typealias SerializedHandler =
        nonisolated(nonsending) @Sendable (VarlinkRequest) async throws -> VarlinkSerializedParameters

    /// A single-reply handler that starts on the main actor, synchronously, and writes its output parameters as
    /// JSON text: see ``handleStarting(_:_:)``.
    public typealias StartingHandler = @MainActor @Sendable (VarlinkRequest) throws -> VarlinkCallStart

    enum MethodHandler: Sendable {
        case single(Handler)
        case serialized(SerializedHandler)
        case starting(StartingHandler)
        case streaming(StreamingHandler, requiresMore: Bool)
    }

    /// The parsed interface definition.
    public let interface: VarlinkInterface
    var handlers: [String: MethodHandler] = [:]

    /// Creates an implementation with no handlers yet.
    ///
    /// - Parameter interface: The interface definition.
    public init(_ interface: VarlinkInterface) {
        self.interface = interface
    }

    /// Parses a definition and creates an implementation with no handlers yet.
    ///
    /// - Parameter description: The interface definition text, served verbatim by `GetInterfaceDescription`.
    /// - Throws: ``VarlinkIDLError`` when the definition does not parse.
    public init(description: String) throws(VarlinkIDLError) {
        self.init(try VarlinkInterface(parsing: description))
    }

    /// Sets the handler of a method that answers with one reply.
    ///
    /// - Important: `method` must be declared by the interface; anything else is a programming error and traps.
    /// - Parameters:
    ///   - method: The method's name, without the interface (`Jump`).
    ///   - handler: Runs once per call, after the parameters passed validation.
    public mutating func handle(_ method: String, _ handler: @escaping Handler) {
        set(.single(handler), for: method)
    }

    /// Sets the handler of a method that answers with one reply, whose output parameters it writes as JSON text
    /// itself: for a method on a hot path whose replies are made mostly of parts that stay the same between calls.
    ///
    /// - Important: `method` must be declared by the interface; anything else is a programming error and traps.
    /// - Parameters:
    ///   - method: The method's name, without the interface.
    ///   - handler: Runs once per call, after the parameters passed validation.
    public mutating func handleSerialized(_ method: String, _ handler: @escaping SerializedHandler) {
        set(.serialized(handler), for: method)
    }

    /// Sets the handler of a method that answers with one reply written as JSON text, and that starts on the main
    /// actor without a task: for the busiest method of a service whose work is the main actor's.
    ///
    /// On a connection whose event loop runs the main actor (``VarlinkServerConfiguration/runsHandlersOnMainActor``),
    /// the handler runs in the loop's callback that starts the call (the read that brought it, or, for a call that
    /// waited for its turn, the answer to an earlier one); when it finishes there, the call is answered without a
    /// task at all, and only a handler that returns ``VarlinkCallStart/suspended(_:)`` gets one, to finish in. A
    /// `more` call, or any call on another server, runs it in a task as other handlers run, in one stretch of the
    /// main actor up to the suspension.
    ///
    /// - Important: `method` must be declared by the interface; anything else is a programming error and traps.
    /// - Parameters:
    ///   - method: The method's name, without the interface.
    ///   - handler: Runs once per call, after the parameters passed validation.
    public mutating func handleStarting(_ method: String, _ handler: @escaping StartingHandler) {
        set(.starting(handler), for: method)
    }

    /// Sets the handler of a method that may answer a `more` call with several replies.
    ///
    /// - Important: `method` must be declared by the interface; anything else is a programming error and traps.
    /// - Parameters:
    ///   - method: The method's name, without the interface (`Monitor`).
    ///   - requiresMore: Whether a call without `more` (`oneway` included) is refused with
    ///     `org.varlink.service.ExpectedMore` before the handler runs. Otherwise the handler runs and
    ///     ``VarlinkReplyWriter/isStreaming`` tells which kind of call it serves.
    ///   - handler: Runs once per call, after the parameters passed validation.
    public mutating func handleStreaming(
        _ method: String,
        requiresMore: Bool = false,
        _ handler: @escaping StreamingHandler
    ) {
        set(.streaming(handler, requiresMore: requiresMore), for: method)
    }

    /// Sets the handler of a method that answers with one reply, with `Codable` parameters and output.
    ///
    /// - Parameters:
    ///   - method: The method's name, without the interface.
    ///   - parameters: The type the input parameters decode into; a member that does not decode is answered with
    ///     `org.varlink.service.InvalidParameter` naming it.
    ///   - handler: Runs once per call with the decoded parameters; its result is encoded as the output parameters.
    public mutating func handle<Parameters: Decodable & SendableMetatype, Output: Encodable & SendableMetatype>(
        _ method: String,
        parameters: Parameters.Type,
        _ handler: nonisolated(nonsending) @escaping @Sendable (Parameters, VarlinkRequest) async throws -> Output
    ) {
        handle(method) { request in
            let decoded = try request.decodeParameters(as: Parameters.self)
            return try encodeOutput(try await handler(decoded, request))
        }
    }

    private mutating func set(_ handler: MethodHandler, for method: String) {
        precondition(
            interface.methods[method] != nil,
            "\(interface.name) declares no method \(method); declare it in the interface definition first"
        )
        handlers[method] = handler
    }
}
