import NavHostKit
import NavHostStorage

// A session opened over the wire, as the state folder keeps it, turned back into what opens it.

extension OpenedSessionsFile.Entry {
    /// How the session is opened.
    var configuration: SessionConfiguration {
        SessionConfiguration(name: name, root: RouteRequest(id: root, parameters: parameters))
    }

    /// `base` with what this session overrides.
    func options(over base: SessionOptions) -> SessionOptions {
        var options = base
        if let maxStackDepth { options.maxStackDepth = maxStackDepth }
        if let intentTimeoutMilliseconds { options.intentTimeLimit = .milliseconds(intentTimeoutMilliseconds) }
        return options
    }
}
