public import Logging

extension Logger.Level {
    /// The syslog priority journald and the `<N>` line prefix use for this level (`sd-daemon.h`'s `SD_*`).
    ///
    /// `trace` and `debug` both become 7 (debug), `notice` 5, `critical` 2 (crit); syslog's alert and emergency are
    /// for the system, not for one service.
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}
