/// Logger metadata keys that NavHost code sets and that the log handlers give dedicated journal fields.
///
/// ```swift
/// logger[metadataKey: NavHostLogMetadataKey.plugin] = "\(manifest.name)"
/// ```
///
/// ``JournaldLogHandler`` writes them as `NAVHOST_PLUGIN`, `NAVHOST_SESSION`, `NAVHOST_ROUTE` and
/// `NAVHOST_CLIENT_PID`, so `journalctl NAVHOST_PLUGIN=Weather` finds one plugin's lines.
public enum NavHostLogMetadataKey {
    /// The feature plugin the line is about (`NAVHOST_PLUGIN`).
    public static let plugin = "navhost.plugin"
    /// The session the line is about (`NAVHOST_SESSION`).
    public static let session = "navhost.session"
    /// The route the line is about (`NAVHOST_ROUTE`).
    public static let route = "navhost.route"
    /// The process ID of the client the line is about, from its socket's credentials (`NAVHOST_CLIENT_PID`).
    public static let clientPID = "navhost.client.pid"

    /// Each key and its journal field.
    static let journalFields: [String: String] = [
        plugin: "NAVHOST_PLUGIN",
        session: "NAVHOST_SESSION",
        route: "NAVHOST_ROUTE",
        clientPID: "NAVHOST_CLIENT_PID",
    ]
}
