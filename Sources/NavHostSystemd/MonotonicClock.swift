import Glibc

/// Reads `CLOCK_MONOTONIC`, the clock systemd stamps notifications and watchdog deadlines with.
enum MonotonicClock {
    /// `CLOCK_MONOTONIC` now, in microseconds.
    static func nowMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
