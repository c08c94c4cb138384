public import NavHostJSON
internal import NavHostVarlink

/// Why a call to `navhostd` failed: the daemon could not be reached, it answered with an error, or the conversation
/// broke down.
///
/// `code` says what kind of failure it was. When the daemon answered with a Varlink error, ``errorName`` is that
/// error's fully qualified name (`io.navhost.Navigation.RouteNotFound`) and ``parameters`` its parameters
/// (`{"route": "products.lst"}`), exactly as they arrived; `message` says the same in words.
///
/// ```swift
/// do {
///     try await client.navigate(to: "products.lst")
/// } catch let error where error.code == .routeNotFound {
///     print("no such route:", error.parameters["route"] ?? "?")
/// }
/// ```
///
/// New codes may be added as the interfaces grow: switch over `code` with a `default`. An error name this library
/// does not know yet gets ``Code/otherErrorReply`` and keeps its name and parameters.
public struct NavHostClientError: Error, Sendable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            // Before or beside the conversation.
            case daemonUnreachable
            case connectionClosed
            case protocolViolation
            /// An error reply one of the interfaces declares: its short name, like `RouteNotFound`.
            case reply(String)
            // Anything else
            case otherErrorReply
        }

        /// The errors of the Varlink layer this library knows, by interface.
        private static let varlinkErrors: [String: Set<String>] = [
            VarlinkError.serviceInterface: [
                "InterfaceNotFound", "MethodNotFound", "MethodNotImplemented", "InvalidParameter", "PermissionDenied",
                "ExpectedMore",
            ],
            "io.navhost.varlink": ["InternalError", "ServiceShuttingDown"],
        ]

        private let base: Base
        private init(_ base: Base) { self.base = base }
        private init(_ name: NavigationErrorName) { self.base = .reply(name.rawValue) }
        private init(_ name: PluginsErrorName) { self.base = .reply(name.rawValue) }

        // MARK: Reaching the daemon

        /// No daemon answered at the socket path: the file is missing, nobody listens on it (connection refused),
        /// the caller may not open it (permission denied), or the path is not a usable socket path.
        public static let daemonUnreachable = Code(.daemonUnreachable)
        /// The connection closed before the reply arrived: the daemon stopped or dropped the connection.
        public static let connectionClosed = Code(.connectionClosed)
        /// The daemon sent something that is not a valid reply, or a reply that does not match the interface.
        public static let protocolViolation = Code(.protocolViolation)

        // MARK: io.navhost.Navigation errors

        /// `SessionNotFound {session}`: no session has that name.
        public static let sessionNotFound = Code(.sessionNotFound)
        /// `ScreenNotFound {screen}`: no screen of the session has that ID.
        public static let screenNotFound = Code(.screenNotFound)
        /// `RouteNotFound {route}`: no loaded feature offers that route.
        public static let routeNotFound = Code(.routeNotFound)
        /// `InvalidRouteParameters {route, reason}`: the route exists but its parameters do not fit it.
        public static let invalidRouteParameters = Code(.invalidRouteParameters)
        /// `IntentNotFound {intent}`: the screen has no intent by that name.
        public static let intentNotFound = Code(.intentNotFound)
        /// `InvalidIntentArguments {intent, reason}`: the intent exists but its arguments do not fit it.
        public static let invalidIntentArguments = Code(.invalidIntentArguments)
        /// `IntentFailed {screen, intent}`: the screen's ViewModel failed while handling the intent.
        public static let intentFailed = Code(.intentFailed)
        /// `IntentTimedOut {screen, intent}`: the intent did not finish within the daemon's time limit.
        public static let intentTimedOut = Code(.intentTimedOut)
        /// `CannotPopRoot`: only the root is on the stack.
        public static let cannotPopRoot = Code(.cannotPopRoot)
        /// `NoModalPresented`: no modal screen is shown.
        public static let noModalPresented = Code(.noModalPresented)
        /// `ScreenNotOnTop {screen}`: the screen's ViewModel popped or dismissed while other screens were above it.
        public static let screenNotOnTop = Code(.screenNotOnTop)
        /// `RouteNotOnStack {route}`: no screen on the stack shows that route.
        public static let routeNotOnStack = Code(.routeNotOnStack)
        /// `EmptyStack`: a replace needs at least a root route.
        public static let emptyStack = Code(.emptyStack)
        /// `ScreenClosed {screen}`: the screen left the stack before the intent finished.
        public static let screenClosed = Code(.screenClosed)
        /// `ViewModelFailed {route}`: the feature could not build the screen for that route.
        public static let viewModelFailed = Code(.viewModelFailed)
        /// `WatcherTooSlow`: the watcher did not keep up even with coalesced updates and was closed (by earlier
        /// daemons: this one coalesces again each time a watch falls behind).
        public static let watcherTooSlow = Code(NavigationErrorName.watcherTooSlow)
        /// `StorageFailed {reason}`: the change could not be saved and was taken back.
        public static let storageFailed = Code(.storageFailed)
        /// `StackTooDeep {limit}`: the stack already holds the most screens a session allows.
        public static let stackTooDeep = Code(.stackTooDeep)
        /// `SessionExists {session}`: `OpenSession` named a session that is open already.
        public static let sessionExists = Code(.sessionExists)
        /// `InvalidSessionName {session}`: the name cannot name a session.
        public static let invalidSessionName = Code(.invalidSessionName)
        /// `SessionConfigured {session}`: the daemon's configuration declares the session, so `CloseSession` refused.
        public static let sessionConfigured = Code(.sessionConfigured)
        /// `InvalidRecording {message}`: the recording given to `Replay` cannot be read.
        public static let invalidRecording = Code(.invalidRecording)

        // MARK: io.navhost.Plugins errors

        /// `PluginNotFound {name}`: no loaded plugin has that name.
        public static let pluginNotFound = Code(.pluginNotFound)
        /// `PluginRefused {code, message}`: the plugin, or its new build, was refused; `code` is a quarantine code
        /// such as `checksumMismatch`. A loaded plugin whose new build was refused keeps serving.
        public static let pluginRefused = Code(.pluginRefused)

        // MARK: org.varlink.service errors

        /// `org.varlink.service.InterfaceNotFound {interface}`: the daemon does not serve the interface.
        public static let interfaceNotFound = Code(.reply("InterfaceNotFound"))
        /// `org.varlink.service.MethodNotFound {method}`: the interface has no such method (an older daemon?).
        public static let methodNotFound = Code(.reply("MethodNotFound"))
        /// `org.varlink.service.MethodNotImplemented {method}`: declared, but the daemon does not implement it.
        public static let methodNotImplemented = Code(.reply("MethodNotImplemented"))
        /// `org.varlink.service.InvalidParameter {parameter}`: a parameter does not match the interface.
        public static let invalidParameter = Code(.reply("InvalidParameter"))
        /// `org.varlink.service.PermissionDenied`: the daemon does not let this user make the call.
        public static let permissionDenied = Code(.reply("PermissionDenied"))
        /// `org.varlink.service.ExpectedMore`: the method has to be called with `more`.
        public static let expectedMore = Code(.reply("ExpectedMore"))

        // MARK: NavHost's Varlink layer

        /// `io.navhost.varlink.InternalError`: the daemon failed in a way it does not describe to clients.
        public static let internalError = Code(.reply("InternalError"))
        /// `io.navhost.varlink.ServiceShuttingDown`: the daemon is stopping; it ended the call (a watch, typically).
        public static let serviceShuttingDown = Code(.reply("ServiceShuttingDown"))

        /// An error reply whose name this library does not know; ``NavHostClientError/errorName`` has it.
        public static let otherErrorReply = Code(.otherErrorReply)

        /// The code for a Varlink error name, or `otherErrorReply`. A name counts only under the interface that
        /// declares it: `io.navhost.Plugins.RouteNotFound` is not `routeNotFound`.
        static func forErrorName(_ name: String) -> Code {
            let (interface, error) = Self.split(name)
            switch String(interface) {
            case NavHostInterfaceName.navigation:
                return NavigationErrorName(rawValue: error).map(Code.init) ?? .otherErrorReply
            case NavHostInterfaceName.plugins:
                return PluginsErrorName(rawValue: error).map(Code.init) ?? .otherErrorReply
            case let other where varlinkErrors[other]?.contains(error) == true: return Code(.reply(error))
            default: return .otherErrorReply
            }
        }

        private static func split(_ name: String) -> (interface: Substring, error: String) {
            guard let dot = name.lastIndex(of: ".") else { return ("", name) }
            return (name[..<dot], String(name[name.index(after: dot)...]))
        }

        /// The code's name: the Varlink error's short name (`RouteNotFound`) for error replies, otherwise the
        /// constant's name (`daemonUnreachable`).
        public var description: String {
            switch base {
            case .reply(let name): return name
            default: return String(describing: base)
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, in words an operator can act on.
    public var message: String
    /// The fully qualified Varlink error name when the daemon answered with an error, otherwise `nil`.
    public var errorName: String?
    /// The error reply's parameters (empty for other failures), as the interface declares them.
    public var parameters: JSONObject
    /// The underlying error, when there is one (the socket error behind ``Code/daemonUnreachable``, say).
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What failed, in words an operator can act on.
    ///   - errorName: The Varlink error name, for an error reply.
    ///   - parameters: The error reply's parameters.
    ///   - cause: The underlying error.
    public init(
        code: Code,
        message: String,
        errorName: String? = nil,
        parameters: JSONObject = [:],
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.errorName = errorName
        self.parameters = parameters
        self.cause = cause
    }
}

// MARK: - CustomStringConvertible

extension NavHostClientError: CustomStringConvertible {
    /// One line: the error name and all its parameters, as the daemon sent them, when it answered with an error;
    /// then the message. A message that ends with the `message` parameter (`PluginRefused`'s, `InvalidRecording`'s)
    /// leaves that end to the parameters, so the line says it once.
    ///
    /// `io.navhost.Navigation.RouteNotFound {"route":"products.lst"}: no loaded feature offers route "products.lst"`
    public var description: String {
        guard let errorName else { return "\(code): \(message)" }
        let parameterText = parameters.isEmpty ? "" : " \(JSONValue.object(parameters))"
        var words = message
        if let said = parameters["message"]?.stringValue, !said.isEmpty, words.hasSuffix(": \(said)") {
            words.removeLast(said.count + 2)
        }
        return "\(errorName)\(parameterText): \(words)"
    }
}
