public import NavHostJSON
public import NavHostKit
public import NavHostWire

// One method per io.navhost.Navigation method (Watch is in NavHostWatch.swift and NavHostDocumentWatch.swift).

// MARK: - Reading

extension NavHostClient {
    /// The names of the open sessions (`Sessions`).
    public func sessions() async throws(NavHostClientError) -> [String] {
        try await call(Self.method("Sessions"), [:], as: SessionsReply.self).sessions
    }

    /// The whole stack of a session, root first (`Stack`).
    ///
    /// ```swift
    /// let snapshot = try await client.stack()
    /// print(snapshot.revision, snapshot.top?.route.id ?? "empty")
    /// ```
    public func stack(session: String? = nil) async throws(NavHostClientError) -> SessionSnapshot {
        let parameters = SessionParameters(session: session).jsonObject
        return try await call(Self.method("Stack"), parameters, as: StackReply.self).snapshot
    }

    /// Every route the loaded features offer (`Routes`).
    public func routes() async throws(NavHostClientError) -> [RouteInfo] {
        try await call(Self.method("Routes"), [:], as: RoutesReply.self).routes
    }
}

// MARK: - Opening and closing sessions

extension NavHostClient {
    /// Opens the session `name` rooted at `root` (`OpenSession`), and returns its first snapshot once it is durable:
    /// a restart of the daemon, crash or not, opens it again with its stack.
    ///
    /// ```swift
    /// let passenger = try await client.openSession(named: "passenger", root: "products.list")
    /// try await client.navigate(to: "products.detail", parameters: ["productID": "p3"], session: "passenger")
    /// ```
    ///
    /// - Parameters:
    ///   - maxStackDepth: The most screens its stack may hold; the daemon's setting when `nil`.
    ///   - intentTimeLimit: How long an intent may take; the daemon's setting when `nil`.
    /// - Throws: `SessionExists`, `InvalidSessionName`, `RouteNotFound`, `InvalidRouteParameters`, `StorageFailed`,
    ///   or `PermissionDenied` for a client that may not control.
    @discardableResult
    public func openSession(
        named name: String,
        root: String,
        parameters: JSONObject = [:],
        maxStackDepth: Int? = nil,
        intentTimeLimit: Duration? = nil
    ) async throws(NavHostClientError) -> SessionSnapshot {
        let call = OpenSessionParameters(
            name: name,
            root: root,
            parameters: parameters,
            maxStackDepth: maxStackDepth,
            intentTimeoutMilliseconds: intentTimeLimit.map { limit in
                let (seconds, attoseconds) = limit.components
                return seconds * 1000 + attoseconds / 1_000_000_000_000_000
            }
        )
        return try await self.call(Self.method("OpenSession"), call.jsonObject, as: StackReply.self).snapshot
    }

    /// Closes the session `name`, opened with ``openSession(named:root:parameters:maxStackDepth:intentTimeLimit:)``
    /// (`CloseSession`); returns once it is durably gone.
    ///
    /// - Throws: `SessionNotFound`, `SessionConfigured` (the daemon's configuration declares it), `StorageFailed`.
    public func closeSession(named name: String) async throws(NavHostClientError) {
        _ = try await call(Self.method("CloseSession"), NameParameters(name: name).jsonObject, as: EmptyReply.self)
    }
}

// MARK: - Moving

extension NavHostClient {
    /// Pushes a screen for `route` on top of the stack (`Navigate`).
    ///
    /// ```swift
    /// let pushed = try await client.navigate(to: "products.detail", parameters: ["productID": "p3"])
    /// print(pushed.screen.id, pushed.revision)
    /// ```
    ///
    /// - Throws: `RouteNotFound`, `InvalidRouteParameters`, `ViewModelFailed`, `SessionNotFound` as
    ///   ``NavHostClientError``.
    @discardableResult
    public func navigate(
        to route: String,
        parameters: JSONObject = [:],
        session: String? = nil
    ) async throws(NavHostClientError) -> PushResult {
        try await call(
            Self.method("Navigate"),
            RouteParameters(session: session, route: route, parameters: parameters.isEmpty ? nil : parameters)
                .jsonObject,
            as: PushResult.self
        )
    }

    /// Pushes a screen for `request` on top of the stack (`Navigate`).
    @discardableResult
    public func navigate(to request: RouteRequest, session: String? = nil) async throws(NavHostClientError)
        -> PushResult
    {
        try await navigate(to: request.id, parameters: request.parameters, session: session)
    }

    /// Shows a screen for `route` in the modal layer (`Present`); ``dismiss(session:)`` closes it.
    @discardableResult
    public func present(
        _ route: String,
        parameters: JSONObject = [:],
        session: String? = nil
    ) async throws(NavHostClientError) -> PushResult {
        try await call(
            Self.method("Present"),
            RouteParameters(session: session, route: route, parameters: parameters.isEmpty ? nil : parameters)
                .jsonObject,
            as: PushResult.self
        )
    }

    /// Pops the top screen (`Pop`).
    ///
    /// - Throws: `CannotPopRoot` as ``NavHostClientError`` when only the root is on the stack.
    @discardableResult
    public func pop(session: String? = nil) async throws(NavHostClientError) -> PopResult {
        try await call(Self.method("Pop"), SessionParameters(session: session).jsonObject, as: PopResult.self)
    }

    /// Pops every screen above the root (`PopToRoot`). Nothing to pop is not an error: `removed` is then empty.
    @discardableResult
    public func popToRoot(session: String? = nil) async throws(NavHostClientError) -> PopResult {
        try await call(Self.method("PopToRoot"), SessionParameters(session: session).jsonObject, as: PopResult.self)
    }

    /// Pops the screens above the topmost one showing `route` (`PopTo`).
    ///
    /// - Parameters:
    ///   - route: The route to pop back to.
    ///   - parameters: When given, only a screen with these route parameters matches.
    ///   - session: The session; `main` when `nil`.
    /// - Throws: `RouteNotOnStack` as ``NavHostClientError`` when no screen shows the route.
    @discardableResult
    public func popTo(
        _ route: String,
        parameters: JSONObject? = nil,
        session: String? = nil
    ) async throws(NavHostClientError) -> PopResult {
        let arguments = RouteParameters(session: session, route: route, parameters: parameters)
        return try await call(Self.method("PopTo"), arguments.jsonObject, as: PopResult.self)
    }

    /// Closes the topmost modal screen and every screen above it (`Dismiss`).
    ///
    /// - Throws: `NoModalPresented` as ``NavHostClientError`` when no modal screen is shown.
    @discardableResult
    public func dismiss(session: String? = nil) async throws(NavHostClientError) -> PopResult {
        try await call(Self.method("Dismiss"), SessionParameters(session: session).jsonObject, as: PopResult.self)
    }

    /// Replaces the whole stack, root included, as one change (`Replace`): a deep link.
    ///
    /// ```swift
    /// try await client.replace(with: [
    ///     RouteRequest(id: "home.main"),
    ///     RouteRequest(id: "products.detail", parameters: ["productID": "p3"]),
    /// ])
    /// ```
    ///
    /// - Throws: `EmptyStack` as ``NavHostClientError`` when `routes` is empty.
    @discardableResult
    public func replace(
        with routes: [RouteRequest],
        session: String? = nil
    ) async throws(NavHostClientError) -> ReplaceResult {
        let arguments = ReplaceParameters(session: session, routes: routes)
        return try await call(Self.method("Replace"), arguments.jsonObject, as: ReplaceResult.self)
    }
}

// MARK: - Intents

extension NavHostClient {
    /// Sends an intent to a screen and returns once its ViewModel has handled it (`Send`).
    ///
    /// ```swift
    /// let sent = try await client.send("onChangedFilter", arguments: ["text": "lamp"])
    /// print(sent.screen?.state["value"]?["matchCount"] ?? "closed")
    /// ```
    ///
    /// - Parameters:
    ///   - intent: The intent's name, like `onChangedFilter`.
    ///   - arguments: The intent's arguments by label.
    ///   - screen: The screen to send it to; the top screen when `nil`.
    ///   - session: The session; `main` when `nil`.
    /// - Returns: The revision once the intent was handled, and the screen as it is then (`nil` when the intent
    ///   closed it).
    /// - Throws: `IntentNotFound`, `InvalidIntentArguments`, `IntentFailed` (its `refusedNavigation` parameter set when
    ///   the daemon refused the navigation the intent asked for), `IntentTimedOut`, `ScreenClosed`, `ScreenNotFound`
    ///   as ``NavHostClientError``.
    @discardableResult
    public func send(
        _ intent: String,
        arguments: JSONObject = [:],
        to screen: ScreenID? = nil,
        session: String? = nil
    ) async throws(NavHostClientError) -> SendResult {
        let parameters = SendParameters(session: session, screen: screen, intent: intent, arguments: arguments)
        return try await call(Self.method("Send"), parameters.jsonObject, as: SendResult.self)
    }

    /// Sends an intent message to a screen (`Send`); see ``send(_:arguments:to:session:)``.
    @discardableResult
    public func send(
        _ intent: IntentMessage,
        to screen: ScreenID? = nil,
        session: String? = nil
    ) async throws(NavHostClientError) -> SendResult {
        try await send(intent.name, arguments: intent.arguments, to: screen, session: session)
    }
}

// MARK: - Wire forms

extension NavHostClient {
    static func method(_ name: String) -> String { "\(navigationInterface).\(name)" }
}
