import Foundation

/// What `/proc/PID/stat` says of a process, read when asked: its state letter and the CPU time it has used.
package enum ProcessStat {
    /// The state letter of process `pid` (`T` when stopped by a signal); `nil` when it is gone.
    package static func state(of pid: Int32) -> String? {
        fields(of: pid)?.first.map(String.init)
    }

    /// The user and system CPU time process `pid` has used, in clock ticks (10 ms here); `nil` when it is gone.
    package static func cpuTime(of pid: Int32) -> Duration? {
        // utime and stime are the file's fields 14 and 15, the 12th and 13th after the name.
        guard let fields = fields(of: pid), fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12])
        else { return nil }
        return .milliseconds((user + system) * 1000 / Int(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The fields after the process's name (which may hold spaces and parentheses), from its state on.
    private static func fields(of pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return nil }
        return stat[end.upperBound...].split(separator: " ")
    }
}
