import Glibc

/// Monotonic time in nanoseconds, read with `clock_gettime(CLOCK_MONOTONIC)` exactly as the floor reads it.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary, fixed point.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sleeps for `milliseconds`.
    static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
