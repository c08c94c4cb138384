import Glibc
internal import NIOCore
internal import NavHostJSON
internal import NavHostSocketPath
internal import NavHostVarlink

// MARK: - From what the lower layers throw

extension NavHostClientError {
    /// The error for a failure to connect to `socketPath`.
    static func unreachable(socketPath: String, cause: any Error) -> NavHostClientError {
        let reason: String
        if let error = cause as? IOError {
            switch error.errnoCode {
            case ENOENT: reason = "no socket at \(socketPath) (is navhostd running?)"
            case ECONNREFUSED where !SocketFile.isSocket(socketPath): reason = "\(socketPath) is not a socket"
            case ECONNREFUSED: reason = "nothing listens on \(socketPath) (connection refused; is navhostd running?)"
            case EACCES, EPERM: reason = "permission denied opening \(socketPath)"
            case ENOTSOCK: reason = "\(socketPath) is not a socket"
            case ENOTDIR: reason = "a part of \(socketPath) is not a directory"
            default: reason = "cannot connect to \(socketPath): \(String(cString: strerror(error.errnoCode)))"
            }
        } else if let error = cause as? SocketAddressError, error == .unixDomainSocketPathTooLong {
            reason =
                "the socket path \(socketPath) is too long for a Unix socket: \(socketPath.utf8.count) bytes, "
                + "\(SocketPathLength.maximum) at most"
        } else {
            reason = "cannot connect to \(socketPath): \(cause)"
        }
        return NavHostClientError(code: .daemonUnreachable, message: reason, cause: cause)
    }

    /// The error for whatever a call to `method` threw; `answered` when the daemon had answered it (a stream's
    /// first reply came) before.
    static func converting(_ error: any Error, method: String, answered: Bool = false) -> NavHostClientError {
        switch error {
        case let error as NavHostClientError:
            return error
        case let error as VarlinkError:
            return NavHostClientError(reply: error)
        case let error as VarlinkClientError where error.code == .connectionClosed:
            return NavHostClientError(
                code: .connectionClosed,
                message: answered
                    ? "the daemon closed the connection in the middle of \(method), after it had begun to reply"
                    : "the daemon closed the connection before it answered \(method)",
                cause: error
            )
        case let error as VarlinkClientError:
            return NavHostClientError(code: .protocolViolation, message: error.message, cause: error)
        default:
            return NavHostClientError(
                code: .protocolViolation,
                message: "the reply to \(method) does not match the interface: \(error)",
                cause: error
            )
        }
    }

    /// The error for an error reply.
    init(reply: VarlinkError) {
        let code = Code.forErrorName(reply.name)
        self.init(
            code: code,
            message: Self.message(for: code, name: reply.name, parameters: reply.parameters),
            errorName: reply.name,
            parameters: reply.parameters
        )
    }
}

// MARK: - Messages

extension NavHostClientError {
    /// Words for an error reply, built from its parameters.
    private static func message(for code: Code, name: String, parameters: JSONObject) -> String {
        func text(_ key: String) -> String {
            guard let value = parameters[key] else { return "?" }
            return value.stringValue.map { "\"\($0)\"" } ?? value.description
        }
        switch code {
        case .sessionNotFound:
            guard let reason = parameters["reason"]?.stringValue else { return "no session \(text("session"))" }
            return "session \(text("session")) is not open: \(reason)"
        case .screenNotFound: return "no screen \(text("screen")) on the stack"
        case .routeNotFound: return "no loaded feature offers route \(text("route"))"
        case .invalidRouteParameters:
            return "the parameters do not fit route \(text("route")): \(parameters["reason"]?.stringValue ?? "?")"
        case .intentNotFound:
            let names = parameters["intents"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard !names.isEmpty else { return "the screen has no intent \(text("intent"))" }
            return "the screen has no intent \(text("intent")); it takes \(names.joined(separator: ", "))"
        case .invalidIntentArguments:
            return "the arguments do not fit intent \(text("intent")): \(parameters["reason"]?.stringValue ?? "?")"
        case .intentFailed:
            if let refusal = parameters["refusedNavigation"]?.stringValue {
                return "intent \(text("intent")) of screen \(text("screen")) asked for a navigation refused: \(refusal)"
            }
            return "screen \(text("screen")) failed while handling intent \(text("intent"))"
        case .intentTimedOut: return "screen \(text("screen")) did not finish intent \(text("intent")) in time"
        case .cannotPopRoot: return "only the root is on the stack"
        case .noModalPresented: return "no modal screen is shown"
        case .screenNotOnTop:
            return "screen \(text("screen")) is not on top: its ViewModel's pop would close a screen above it"
        case .routeNotOnStack:
            guard parameters["parameters"] != nil else { return "no screen on the stack shows route \(text("route"))" }
            return "no screen on the stack shows route \(text("route")) with parameters \(text("parameters"))"
        case .emptyStack: return "a stack needs at least a root route"
        case .screenClosed: return "screen \(text("screen")) left the stack before the intent finished"
        case .viewModelFailed: return "the feature could not build the screen for route \(text("route"))"
        case .watcherTooSlow: return "the watcher did not keep up and was closed"
        case .stackTooDeep: return "the stack already holds the most screens a session allows (\(text("limit")))"
        case .sessionExists: return "a session named \(text("session")) is open already"
        case .invalidSessionName:
            return
                "\(text("session")) cannot name a session: use 1 to 64 letters, digits, -, _ and ., not starting with ."
        case .sessionConfigured:
            return "session \(text("session")) is declared by the daemon's configuration (its files, its --session "
                + "options, or, when they declare none, the default main), which alone opens and closes it: open a "
                + "session of another name, or give this one another root there (--session NAME=ROUTE)"
        case .storageFailed: return "the change could not be saved and was taken back: \(text("reason"))"
        case .invalidRecording: return "the recording cannot be replayed: \(parameters["message"]?.stringValue ?? "?")"
        case .pluginNotFound:
            guard let folder = parameters["unloadedFolder"]?.stringValue else {
                return "no loaded plugin is named \(text("name"))"
            }
            return
                "no loaded plugin is named \(text("name")): it was unloaded by hand; plugins load \(folder) brings it back"
        case .pluginRefused:
            let code = parameters["code"]?.stringValue ?? "?"
            // A plugin, its new build, or its unload (inUse, storageFailed): the code and message say which.
            return "refused (\(code)): \(parameters["message"]?.stringValue ?? "?")"
        case .interfaceNotFound: return "the daemon does not serve interface \(text("interface"))"
        case .methodNotFound: return "the daemon does not know method \(text("method"))"
        case .methodNotImplemented: return "the daemon does not implement method \(text("method"))"
        case .invalidParameter: return "parameter \(text("parameter")) does not match the interface"
        case .permissionDenied:
            return
                "the daemon does not allow this user to make that call (control calls need root, the navhost group, or a user or group "
                + "navhostd.conf's control.users or control.groups names)"
        case .expectedMore: return "the method has to be called with \"more\""
        case .internalError: return "the daemon failed internally (its log says why)"
        case .serviceShuttingDown: return "the daemon is shutting down"
        default: return "the daemon answered with \(name)"
        }
    }
}
