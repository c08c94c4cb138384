internal import Glibc
public import NIOCore
internal import NIOPosix
import Synchronization

/// Keeps one event loop polling its sockets for a short while after a client's read, instead of sleeping at once.
///
/// A loop with nothing to do sleeps in `epoll_wait`, and on a virtual machine whose idle vCPUs halt (a KVM guest
/// with the `haltpoll` idle driver and `guest_halt_poll_ns=0`) the next message must first wake that vCPU: the client's
/// write pays an inter-processor interrupt and the loop comes back with cold caches, tens of microseconds each time. A
/// client that answers a reply with its next call within the window finds the loop still polling: its call is read
/// in the next pass, without a wake-up. After ``window`` with no read, the loop sleeps as before; an idle server
/// spends nothing.
///
/// The polling goes through the loop's own selector: each pass writes a byte to a pipe the loop watches, so
/// `epoll_wait` returns at once, with whatever else became ready, and NIO runs its tasks and handlers as usual.
/// Nothing polls on a machine, or in a process, that can use only one CPU: there the client could not run while the
/// loop polls.
///
/// `BusyPoller` is told of reads on its loop (``noteRead()``) and touches its state only there.
package final class BusyPoller: @unchecked Sendable {
    /// How long the loop keeps polling after a read, in nanoseconds; 0 for never.
    private let windowNanoseconds: Synchronization.Atomic<Int64>
    /// ``awaitingWindow``, or the one given at start.
    private let awaitingWindowNanoseconds: UInt64
    private let loop: any EventLoop

    // MARK: On the loop only

    /// The pipe's end written to make the loop's next `epoll_wait` return at once; -1 once closed.
    private var wakeDescriptor: CInt
    /// The pipe's end the loop watches, as its channel.
    private var channel: (any Channel)?
    /// When the last read was noted, in `NIODeadline` uptime nanoseconds.
    private var lastRead: UInt64 = 0
    /// Whether a byte is in the pipe or being drained: the loop is polling.
    package private(set) var isPolling = false
    /// Calls on the loop whose handler suspended and whose final reply has not gone out.
    package private(set) var awaitedReplies = 0
    /// Until when, in `NIODeadline` uptime nanoseconds, the loop polls while ``awaitedReplies`` is above zero:
    /// ``awaitingWindow`` after the latest of them was noted. A call that waits longer (an intent whose use case
    /// awaits the network) is not polled for past it, however many reads the loop has meanwhile.
    private var awaitingUntil: UInt64 = 0

    /// Whether this process may run on more than one CPU: the machine has two or more, and neither its CPU affinity
    /// (`taskset`, systemd's `CPUAffinity=`) nor its cgroup's CPU quota (`CPUQuota=`) allows fewer: under a quota of
    /// one CPU, polling would spend the quota and have the daemon throttled.
    private static let mayPoll = System.coreCount > 1 && cpusAllowed > 1 && cgroupQuotaAllowsTwoCPUs

    /// How many CPUs the process's affinity allows (`Cpus_allowed` in `/proc/self/status`, the mask
    /// `sched_getaffinity` answers); 2 when it cannot tell.
    private static var cpusAllowed: Int {
        guard let status = readText("/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return 2 }
        let mask = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
        return mask.reduce(0) { $0 + ($1.hexDigitValue ?? 0).nonzeroBitCount }
    }

    /// Whether the CPU quota of this process's cgroup (`cpu.max` of cgroup v2, its own and its parents') allows at
    /// least two CPUs' time; `true` when there is none, or it cannot be read.
    private static var cgroupQuotaAllowsTwoCPUs: Bool {
        guard let membership = readText("/proc/self/cgroup"),
            let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return true }
        var folder = String(line.dropFirst("0::".count))
        while true {
            let fields = readText("/sys/fs/cgroup\(folder == "/" ? "" : folder)/cpu.max")?.split(separator: " ") ?? []
            if fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1].filter(\.isNumber)),
                period > 0, quota < 2 * period
            {
                return false
            }
            guard folder != "/", let slash = folder.lastIndex(of: "/") else { return true }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
    }

    /// The start of the text file at `path` (16 KiB at most), or `nil` when it cannot be read.
    private static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16_384)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
    }

    private init(loop: any EventLoop, window: Duration?, awaitingWindow: Duration, wakeDescriptor: CInt) {
        self.loop = loop
        self.windowNanoseconds = Synchronization.Atomic(Self.nanoseconds(window))
        self.awaitingWindowNanoseconds = UInt64(Self.nanoseconds(awaitingWindow))
        self.wakeDescriptor = wakeDescriptor
    }

    deinit {
        if wakeDescriptor >= 0 { Glibc.close(wakeDescriptor) }
    }

    /// Makes a poller for `loop`, whose pipe the loop watches from now on; `nil` when this process can use only one
    /// CPU or the pipe cannot be made.
    package static func start(
        on loop: any EventLoop,
        window: Duration?,
        awaitingWindow: Duration = BusyPoller.awaitingWindow
    ) async -> BusyPoller? {
        guard mayPoll else { return nil }
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let poller = BusyPoller(loop: loop, window: window, awaitingWindow: awaitingWindow, wakeDescriptor: ends[1])
        do {
            _ = try await NIOPipeBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(PollPassHandler(poller))
                        poller.channel = channel
                    }
                }
                .takingOwnershipOfDescriptor(input: ends[0])
                .get()
            return poller
        } catch {
            // NIO owns the read end from the bootstrap on, and closes it when it fails: closed again here, its number
            // might be another file's by then. The write end goes with the poller.
            return nil
        }
    }

    /// How long the loop keeps polling after a read; `nil` or zero for never. Takes effect at the next read.
    package var window: Duration? {
        get {
            let nanoseconds = windowNanoseconds.load(ordering: .relaxed)
            return nanoseconds > 0 ? .nanoseconds(nanoseconds) : nil
        }
        set { windowNanoseconds.store(Self.nanoseconds(newValue), ordering: .relaxed) }
    }

    /// Notes a read from a client on the loop: the loop polls until ``window`` has passed without another.
    ///
    /// - Important: Call it on the poller's loop.
    @inline(__always)
    package func noteRead() {
        guard windowNanoseconds.load(ordering: .relaxed) > 0 else { return }
        lastRead = NIODeadline.now().uptimeNanoseconds
        if !isPolling { pollAgain() }
    }

    /// How long after a call's handler suspended the loop polls while its reply is awaited (``noteReplyAwaited()``):
    /// a reply that waits for a durable write (an `fdatasync`, 130 to 190 µs p50 on this project's VMs, its tail in
    /// milliseconds) then finds the loop polling, and goes out without a wake-up of the loop.
    package static let awaitingWindow: Duration = .milliseconds(2)

    /// Notes that a call on the loop suspended before its final reply: the loop polls on while it is awaited, for up
    /// to ``awaitingWindow`` from now (never when the window is off).
    ///
    /// - Important: Call it on the poller's loop, and ``noteReplyGiven()`` or ``noteReplyAbandoned()`` once for each.
    package func noteReplyAwaited() {
        awaitedReplies += 1
        guard windowNanoseconds.load(ordering: .relaxed) > 0 else { return }
        awaitingUntil = max(awaitingUntil, NIODeadline.now().uptimeNanoseconds &+ awaitingWindowNanoseconds)
        if !isPolling { pollAgain() }
    }

    /// Notes that a call ``noteReplyAwaited()`` noted has finished, its final reply given to its connection (or none,
    /// for a call that failed or was cancelled): the window starts again, as after a read, for the client's answer.
    ///
    /// - Important: Call it on the poller's loop.
    package func noteReplyGiven() {
        awaitedReplies -= 1
        noteRead()
    }

    /// Notes that a call ``noteReplyAwaited()`` noted will not be answered: its connection closed. Nothing polls for
    /// it any more, and nothing starts polling.
    ///
    /// - Important: Call it on the poller's loop.
    package func noteReplyAbandoned() {
        awaitedReplies -= 1
    }

    /// Stops polling and lets the pipe go; the loop sleeps when it has nothing to do from now on.
    package func stop() {
        loop.execute { self.close() }
    }

    // MARK: Passes

    /// One pass of the loop has seen the pipe: polls again while the window since the last read lasts, or a reply is
    /// awaited within ``awaitingWindow`` of its call's suspension.
    fileprivate func passEnded() {
        isPolling = false
        let window = UInt64(max(windowNanoseconds.load(ordering: .relaxed), 0))
        guard window > 0 else { return }
        let now = NIODeadline.now().uptimeNanoseconds
        if now &- lastRead < window || (awaitedReplies > 0 && now < awaitingUntil) { pollAgain() }
    }

    /// Makes the loop's next `epoll_wait` return at once.
    private func pollAgain() {
        guard wakeDescriptor >= 0 else { return }
        var byte: UInt8 = 1
        isPolling = write(wakeDescriptor, &byte, 1) == 1
    }

    fileprivate func close() {
        isPolling = false
        if wakeDescriptor >= 0 {
            Glibc.close(wakeDescriptor)
            wakeDescriptor = -1
        }
        channel?.close(promise: nil)
        channel = nil
    }

    private static func nanoseconds(_ duration: Duration?) -> Int64 {
        guard let duration, duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Drains the poller's pipe, then asks the poller whether the loop polls again.
private final class PollPassHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let poller: BusyPoller

    init(_ poller: BusyPoller) {
        self.poller = poller
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelReadComplete(context: ChannelHandlerContext) {
        poller.passEnded()
    }

    func channelInactive(context: ChannelHandlerContext) {
        poller.close()
    }
}

/// A server's pollers, one for each loop of its event loop group.
package struct BusyPollers: Sendable {
    private let pollers: [ObjectIdentifier: BusyPoller]

    /// No pollers: every loop sleeps as soon as it has nothing to do.
    package static let none = BusyPollers(pollers: [:])

    /// Starts a poller on each loop of `group` when `window` is not `nil` (none on a machine or in a process limited
    /// to one CPU).
    package static func start(on group: any EventLoopGroup, window: Duration?) async -> BusyPollers {
        guard window != nil else { return .none }
        var pollers: [ObjectIdentifier: BusyPoller] = [:]
        for loop in group.makeIterator() {
            if let poller = await BusyPoller.start(on: loop, window: window) {
                pollers[ObjectIdentifier(loop)] = poller
            }
        }
        return BusyPollers(pollers: pollers)
    }

    /// Whether there is no poller at all.
    package var isEmpty: Bool { pollers.isEmpty }

    /// The poller of `loop`, if it has one.
    package func poller(for loop: any EventLoop) -> BusyPoller? {
        pollers[ObjectIdentifier(loop)]
    }

    /// Sets every poller's window (none polls again once it is `nil`; a server started without pollers gets none).
    package func setWindow(_ window: Duration?) {
        for poller in pollers.values { poller.window = window }
    }

    /// Stops every poller.
    package func stop() {
        for poller in pollers.values { poller.stop() }
    }
}
