/// The errors `io.navhost.Navigation` declares, by their short names (`RouteNotFound`).
///
/// The daemon's refusals and the client's error codes are both spelled from this list, and a test checks it against
/// the interface definition: an error added to one and not the other fails that test.
public enum NavigationErrorName: String, Sendable, Hashable, CaseIterable {
    case sessionNotFound = "SessionNotFound"
    case screenNotFound = "ScreenNotFound"
    case routeNotFound = "RouteNotFound"
    case invalidRouteParameters = "InvalidRouteParameters"
    case intentNotFound = "IntentNotFound"
    case invalidIntentArguments = "InvalidIntentArguments"
    case intentFailed = "IntentFailed"
    case intentTimedOut = "IntentTimedOut"
    case cannotPopRoot = "CannotPopRoot"
    case noModalPresented = "NoModalPresented"
    case routeNotOnStack = "RouteNotOnStack"
    case emptyStack = "EmptyStack"
    case screenClosed = "ScreenClosed"
    case viewModelFailed = "ViewModelFailed"
    case watcherTooSlow = "WatcherTooSlow"
    case storageFailed = "StorageFailed"
    case stackTooDeep = "StackTooDeep"
    case sessionExists = "SessionExists"
    case invalidSessionName = "InvalidSessionName"
    case sessionConfigured = "SessionConfigured"
    case invalidRecording = "InvalidRecording"

    /// The fully qualified name, like `io.navhost.Navigation.RouteNotFound`.
    public var qualifiedName: String { "\(NavHostInterfaceName.navigation).\(rawValue)" }
}

/// The errors `io.navhost.Plugins` declares, by their short names (`PluginRefused`).
public enum PluginsErrorName: String, Sendable, Hashable, CaseIterable {
    case pluginNotFound = "PluginNotFound"
    case pluginRefused = "PluginRefused"
    case watcherTooSlow = "WatcherTooSlow"

    /// The fully qualified name, like `io.navhost.Plugins.PluginRefused`.
    public var qualifiedName: String { "\(NavHostInterfaceName.plugins).\(rawValue)" }
}
