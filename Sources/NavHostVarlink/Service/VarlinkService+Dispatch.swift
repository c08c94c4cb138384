internal import NavHostJSON

extension VarlinkService {
    /// Routes a call to its handler and runs it, after the checks every call goes through, in this order:
    ///
    /// 1. `method` must name an interface of the service → `InterfaceNotFound` (a name without a dot, or whose
    ///    interface part is not a valid interface name, is looked up as is and not found);
    /// 2. and a method that interface declares → `MethodNotFound`;
    /// 3. the parameters must match the method's input declaration → `InvalidParameter` with the offending path;
    /// 4. the method must have a handler → `MethodNotImplemented`;
    /// 5. `upgrade` is not supported by this layer → `MethodNotImplemented` (the connection stays a Varlink
    ///    connection, as the specification asks for an error reply to an upgrade);
    /// 6. a streaming method registered with `requiresMore` must be called with `more` → `ExpectedMore`.
    ///
    /// - Returns: The final reply's output parameters, as an object or as the text a serializing handler wrote.
    /// - Throws: Whatever the handler throws, or a ``VarlinkError`` from the checks.
    nonisolated(nonsending) func perform(
        _ request: VarlinkRequest,
        writer: VarlinkReplyWriter
    ) async throws -> VarlinkOutput {
        let call = request.call
        if let route = routes[call.method] {
            try route.interface.validateInput(of: call, against: route.method)
            guard let handler = route.handler else { throw VarlinkError.methodNotImplemented(call.method) }
            if call.upgrade { throw VarlinkError.methodNotImplemented(call.method) }
            return try await run(handler, request, writer: writer)
        }
        // Not a method of an added interface: one of `org.varlink.service`, or an error.
        let interfaceName = call.interfaceName
        guard let interface = interface(named: interfaceName.isEmpty ? call.method : interfaceName) else {
            throw VarlinkError.interfaceNotFound(interfaceName.isEmpty ? call.method : interfaceName)
        }
        guard let method = interface.methods[call.memberName] else {
            throw VarlinkError.methodNotFound(call.method)
        }
        try interface.validateInput(of: call, against: method)
        if interface.name == VarlinkError.serviceInterface {
            if call.upgrade { throw VarlinkError.methodNotImplemented(call.method) }
            if call.memberName == "GetInfo", let readiness { await readiness() }
            return .object(try OrgVarlinkService.reply(to: call, service: self))
        }
        // Not reached: every method of an added interface has a route.
        throw VarlinkError.methodNotImplemented(call.method)
    }

    /// The route of a call whose method has a handler that starts on the main actor
    /// (``VarlinkInterfaceImplementation/handleStarting(_:_:)``), for ``start(_:on:)``; `nil` for a call of any
    /// other method, or with `more`: ``perform(_:writer:)`` runs it.
    func startingRoute(for call: VarlinkCall) -> MethodRoute? {
        guard !call.more, let route = routes[call.method], case .starting = route.handler else { return nil }
        return route
    }

    /// ``perform(_:writer:)`` for a call ``startingRoute(for:)`` routed: the same checks, then the handler's first
    /// stretch, before this returns.
    @MainActor
    func start(_ request: VarlinkRequest, on route: MethodRoute) throws -> VarlinkCallStart {
        guard case .starting(let handler) = route.handler else { preconditionFailure("not a starting route") }
        let call = request.call
        try route.interface.validateInput(of: call, against: route.method)
        if call.upgrade { throw VarlinkError.methodNotImplemented(call.method) }
        return try handler(request)
    }

    /// Runs a starting handler in a task, its first stretch and the wait for its rest without leaving the main actor
    /// in between (nothing else runs between the two, as when the connection starts it in the read).
    @MainActor
    private static func finish(
        _ handler: VarlinkInterfaceImplementation.StartingHandler,
        _ request: VarlinkRequest
    ) async throws -> VarlinkSerializedParameters {
        try await handler(request).parameters
    }

    /// Runs a method's handler, once the checks before it passed.
    private nonisolated(nonsending) func run(
        _ handler: VarlinkInterfaceImplementation.MethodHandler,
        _ request: VarlinkRequest,
        writer: VarlinkReplyWriter
    ) async throws -> VarlinkOutput {
        let call = request.call
        switch handler {
        case .single(let handler):
            return .object(try await handler(request))
        case .serialized(let handler):
            return .serialized(try await handler(request))
        case .starting(let handler):
            return .serialized(try await Self.finish(handler, request))
        case .streaming(let handler, let requiresMore):
            if requiresMore, !call.more { throw VarlinkError.expectedMore() }
            return .object(try await handler(request, writer))
        }
    }
}

/// A call's final output parameters, as its handler gave them.
enum VarlinkOutput: Sendable {
    case object(JSONObject)
    case serialized(VarlinkSerializedParameters)
}
