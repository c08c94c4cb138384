/// The errors `io.navhost.Navigation` declares, by their short names (`RouteNotFound`).
///
/// The daemon's refusals and the client's error codes are both spelled from this list, and a test checks it against
/// the interface definition: an error added to one and not the other fails that test.
public enum NavigationErrorName: String, Sendable, Hashable, CaseIterable {
    /// No session has that name.
    case sessionNotFound = "SessionNotFound"
    /// No screen of the session has that ID.
    case screenNotFound = "ScreenNotFound"
    /// No loaded feature offers that route.
    case routeNotFound = "RouteNotFound"
    /// The route exists but its parameters do not fit it.
    case invalidRouteParameters = "InvalidRouteParameters"
    /// The screen's ViewModel has no intent by that name.
    case intentNotFound = "IntentNotFound"
    /// The intent exists but its arguments do not fit it.
    case invalidIntentArguments = "InvalidIntentArguments"
    /// The ViewModel threw while handling the intent.
    case intentFailed = "IntentFailed"
    /// The intent did not finish within the time limit; the screen shows an error.
    case intentTimedOut = "IntentTimedOut"
    /// Only the root is on the stack; there is nothing to pop.
    case cannotPopRoot = "CannotPopRoot"
    /// `dismiss` with no modal screen shown.
    case noModalPresented = "NoModalPresented"
    /// A ViewModel's pop or dismiss from a screen with others above it: it would close a screen it does not own.
    case screenNotOnTop = "ScreenNotOnTop"
    /// `popTo` a route that no screen on the stack shows.
    case routeNotOnStack = "RouteNotOnStack"
    /// `replace` with no routes: a stack needs a root.
    case emptyStack = "EmptyStack"
    /// The screen left the stack while the request was under way; its answer is dropped.
    case screenClosed = "ScreenClosed"
    /// The feature could not build the ViewModel for a route.
    case viewModelFailed = "ViewModelFailed"
    /// The watcher did not keep up even with coalesced updates and was closed.
    case watcherTooSlow = "WatcherTooSlow"
    /// The change could not be written to the state folder (full, read-only, failing); it was taken back.
    case storageFailed = "StorageFailed"
    /// The stack already holds the most screens the session allows (`SessionOptions.maxStackDepth`).
    case stackTooDeep = "StackTooDeep"
    /// A session of that name is open already.
    case sessionExists = "SessionExists"
    /// The name cannot name a session: 1 to 64 letters, digits, `-`, `_` and `.`, not starting with `.`.
    case invalidSessionName = "InvalidSessionName"
    /// The configuration declares the session, so it cannot be closed over the wire.
    case sessionConfigured = "SessionConfigured"
    /// A recording given to `Replay` cannot be read.
    case invalidRecording = "InvalidRecording"

    /// The short name, like `RouteNotFound`.
    public var name: String { rawValue }

    /// The fully qualified name, like `io.navhost.Navigation.RouteNotFound`.
    public var qualifiedName: String { "\(NavHostInterfaceName.navigation).\(rawValue)" }
}

extension NavigationErrorName: CustomStringConvertible {
    /// The short name, like `RouteNotFound`.
    public var description: String { rawValue }
}

/// The errors `io.navhost.Plugins` declares, by their short names (`PluginRefused`).
public enum PluginsErrorName: String, Sendable, Hashable, CaseIterable {
    /// No loaded plugin has that name.
    case pluginNotFound = "PluginNotFound"
    /// The plugin, or its new build, was refused; a loaded plugin whose new build was refused keeps serving.
    case pluginRefused = "PluginRefused"
    /// The watcher did not keep up even with coalesced updates and was closed.
    case watcherTooSlow = "WatcherTooSlow"

    /// The fully qualified name, like `io.navhost.Plugins.PluginRefused`.
    public var qualifiedName: String { "\(NavHostInterfaceName.plugins).\(rawValue)" }
}
