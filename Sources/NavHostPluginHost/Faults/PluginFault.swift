/// A plugin that took the daemon down: it crashed it (a trap, a bad memory access) or held the main thread past the
/// stall limit, so the daemon had to exit. The next start quarantines the plugin until its library changes.
public struct PluginFault: Sendable, Hashable, Codable {
    /// What the plugin did.
    public enum Cause: String, Sendable, Hashable, Codable {
        /// A fatal signal arrived while the plugin's code was on the stack.
        case crash
        /// The plugin's code held the main thread longer than the stall limit.
        case stall
    }

    /// The plugin's name.
    public var plugin: String
    /// The SHA-256 of the library that faulted: a new build is a new chance.
    public var sha256: String
    /// What the plugin did.
    public var cause: Cause
    /// The facts: the signal, or how long the main thread was held.
    public var detail: String

    public init(plugin: String, sha256: String, cause: Cause, detail: String) {
        self.plugin = plugin
        self.sha256 = sha256
        self.cause = cause
        self.detail = detail
    }

    /// The fault as an operator reads it in `navctl plugins list`.
    public var quarantineReason: QuarantineReason {
        switch cause {
        case .crash:
            QuarantineReason(
                .crashed,
                "it crashed the daemon (\(detail)) on an earlier run; it stays quarantined until its library changes"
            )
        case .stall:
            QuarantineReason(
                .stalled,
                "it \(detail) on an earlier run, so the daemon had to restart; it stays quarantined until its library changes"
            )
        }
    }
}
