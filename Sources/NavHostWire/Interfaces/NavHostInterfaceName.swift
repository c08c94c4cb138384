/// The names of NavHost's two Varlink interfaces, as their definitions declare them.
public enum NavHostInterfaceName {
    /// `io.navhost.Navigation`: sessions, their stacks, intents, watches, the flight recorder.
    public static let navigation = "io.navhost.Navigation"
    /// `io.navhost.Plugins`: the plugins, and loading, reloading and unloading them.
    public static let plugins = "io.navhost.Plugins"
}
