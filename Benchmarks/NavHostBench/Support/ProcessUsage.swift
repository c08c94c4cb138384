import Glibc

/// What a process has used so far: CPU time over all its threads, and context switches summed over its threads. Read
/// for the daemon and for the Python peer alike, so that their CPU per call is measured the same way.
struct ProcessUsage {
    var cpuNanoseconds: UInt64
    var voluntarySwitches: UInt64
    var involuntarySwitches: UInt64

    /// The usage between `earlier` and this one, per `count` operations.
    func perOperation(since earlier: ProcessUsage, count: Int) -> (cpuMicroseconds: Double, switches: Double) {
        let operations = Double(max(count, 1))
        let cpu = Double(cpuNanoseconds - earlier.cpuNanoseconds) / 1000 / operations
        // A thread that exits (libdispatch lets idle workers go) takes its count with it, so the sum can shrink.
        let now = Int64(voluntarySwitches + involuntarySwitches)
        let before = Int64(earlier.voluntarySwitches + earlier.involuntarySwitches)
        let switches = Double(max(now - before, 0)) / operations
        return (cpu, switches)
    }

    /// The CPU time (`utime + stime` of `/proc/<pid>/stat`) and the threads' context switches
    /// (`/proc/<pid>/task/*/status`) of process `pid`. Unlike wall-clock times, these hardly depend on what else the
    /// machine runs.
    static func of(_ pid: pid_t) throws -> ProcessUsage {
        guard let stat = readFile("/proc/\(pid)/stat"), let end = stat.lastIndex(of: ")") else {
            throw BenchError("cannot read /proc/\(pid)/stat")
        }
        // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else {
            throw BenchError("unexpected /proc/\(pid)/stat: \(stat)")
        }
        let ticks = UInt64(sysconf(Int32(_SC_CLK_TCK)))
        var usage = ProcessUsage(
            cpuNanoseconds: (user + system) * 1_000_000_000 / ticks,
            voluntarySwitches: 0,
            involuntarySwitches: 0
        )
        for thread in Subprocess.threads(of: pid) {
            guard let status = readFile("/proc/\(pid)/task/\(thread)/status") else { continue }
            for line in status.split(separator: "\n") {
                if line.hasPrefix("voluntary_ctxt_switches:") {
                    usage.voluntarySwitches += UInt64(line.split(separator: "\t").last ?? "") ?? 0
                } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    usage.involuntarySwitches += UInt64(line.split(separator: "\t").last ?? "") ?? 0
                }
            }
        }
        return usage
    }
}
