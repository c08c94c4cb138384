package import Glibc

// The millisecond stamps the daemon keeps and compares: a plugin's `triedAt`, a file's change time, a kept record's
// name.

extension timespec {
    /// The time in whole milliseconds since its clock's origin (the Unix epoch for the wall clock and a file's times).
    package var milliseconds: Int64 { Int64(tv_sec) * 1000 + Int64(tv_nsec) / 1_000_000 }

    /// The wall clock now (`CLOCK_REALTIME`).
    package static func wallClockNow() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }
}
