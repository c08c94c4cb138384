import Glibc

/// The disk's writes of the state folder's files (``DiskWrites``: sessions, the opened-sessions list, plugin
/// overrides), each begun only after `delay`: a test hook of navhostd (`--test-state-write-delay`), so that a kill -9
/// right after a reply that did not wait for its write comes before that write, unless the kill itself is later than
/// the delay, instead of only when it beats the writer. A reply that waits for its write waits the delay too, and is as
/// durable as without it.
package struct DelayedDiskWrites: SessionFileWrites {
    /// How long each write waits before it begins.
    package let delay: Duration
    private let disk = DiskWrites()

    package init(delay: Duration) {
        self.delay = delay
    }

    package func replace(_ path: String, with bytes: [UInt8]) throws(FileAccessError) {
        wait()
        try disk.replace(path, with: bytes)
    }

    package func write(
        _ bytes: [UInt8],
        at offset: Int,
        to path: String,
        cuttingTo size: Int?,
        create: Bool,
        headLast: Int
    ) throws(FileAccessError) -> Bool {
        wait()
        return try disk.write(bytes, at: offset, to: path, cuttingTo: size, create: create, headLast: headLast)
    }

    /// Sleeps the writing thread (the session writer's queue, or the caller's for the list and the overrides).
    private func wait() {
        let (seconds, attoseconds) = delay.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
