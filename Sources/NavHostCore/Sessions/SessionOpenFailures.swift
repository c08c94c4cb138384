/// Why each session the daemon keeps trying to open could not open, as last logged: the same failure is logged once,
/// however often the daemon tries again (each plugin that loads), and again when its reason changes or the record
/// is cleared (a reload, which an operator expects to say what is still wrong).
///
/// ```swift
/// if failures.isNew(session.name, because: "\(error)") { logger.error("Cannot open …") }
/// ```
public struct SessionOpenFailures: Sendable {
    private var reasons: [String: String] = [:]

    public init() {}

    /// Records that `name` failed to open because of `reason`, and returns whether that is news: a first failure, or
    /// another reason than the last one recorded.
    public mutating func isNew(_ name: String, because reason: String) -> Bool {
        guard reasons[name] != reason else { return false }
        reasons[name] = reason
        return true
    }

    /// Why `name` last failed to open, as recorded; `nil` when it has not failed since it was last forgotten.
    public func reason(of name: String) -> String? {
        reasons[name]
    }

    /// Forgets `name`'s failure: it opened, or it is no longer to be opened.
    public mutating func forget(_ name: String) {
        reasons[name] = nil
    }

    /// Forgets every failure, so that the next attempt logs each one again.
    public mutating func forgetAll() {
        reasons = [:]
    }
}
