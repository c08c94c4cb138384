import CNavHostBench
import Glibc

/// Waits for any of many sockets to become readable, with `epoll`, so one thread can drive a thousand connections
/// without scanning them all on every wake-up.
final class Poller {
    private let fd: Int32
    private var events: [epoll_event]

    init(capacity: Int = 1024) throws {
        fd = epoll_create1(Int32(O_CLOEXEC))
        guard fd >= 0 else { throw BenchError.system("epoll_create1") }
        events = [epoll_event](repeating: epoll_event(), count: capacity)
    }

    deinit {
        close(fd)
    }

    /// Watches `socket` for input; ``wait(milliseconds:_:)`` reports it by `token`.
    func add(_ socket: Int32, token: Int) throws {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(token)
        guard epoll_ctl(fd, EPOLL_CTL_ADD, socket, &event) == 0 else { throw BenchError.system("epoll_ctl") }
    }

    /// Waits until at least one watched socket is readable (or `milliseconds` pass) and calls `body` with each
    /// readable socket's token. Returns how many were readable.
    @discardableResult
    func wait(milliseconds: Int32, _ body: (Int) throws -> Void) throws -> Int {
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(fd, buffer.baseAddress, Int32(buffer.count), milliseconds)
        }
        if count < 0 {
            if errno == EINTR { return 0 }
            throw BenchError.system("epoll_wait")
        }
        for index in 0..<Int(count) { try body(Int(events[index].data.u64)) }
        return Int(count)
    }
}
