import CMainQueue
import Glibc
import NIOCore
import NIOPosix

/// navhostd's main thread: one NIO event loop that serves the sockets and runs the main actor.
///
/// A call that reaches a session used to cross threads four times: NIO's thread read it, the main thread ran the
/// session and the ViewModel, NIO's thread wrote the reply, each hand-off an eventfd write and a futex wake-up on the
/// other side. Here the loop that reads the socket is the thread that runs the main actor, and a job for the main
/// actor goes straight onto the loop's task queue (Swift's main-executor hook), so a hop to the main actor from the
/// loop costs a queue append, not a system call. `DispatchQueue.main` is still served: its wake-up descriptor is one
/// more descriptor the loop waits on. docs/architecture.md has the figures that decided it.
enum MainThreadEventLoop {
    /// Turns the calling thread, which must be the main thread, into the event loop; calls `body` on it once the
    /// main actor and the main queue are served there. Never returns: the daemon ends with `exit`.
    static func run(_ body: @escaping @Sendable (any EventLoop) -> Void) -> Never {
        MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
            useCLocaleObject()
            runMainActor(on: loop)
            serveMainQueue(on: loop).whenComplete { result in
                if case .failure(let error) = result {
                    fatalError("navhostd: cannot serve the main queue on the event loop: \(error)")
                }
                body(loop)
            }
        }
        exit(EXIT_FAILURE)
    }

    /// Makes the calling thread use glibc's C locale object: the locale it has anyway (nothing in the daemon calls
    /// `setlocale`), but as the object glibc's locale functions answer at once.
    ///
    /// json-c switches the thread to the C locale for every message it parses (`json_tokener_parse_ex`: `uselocale`,
    /// `duplocale`, `newlocale`, and `freelocale` after), so that numbers parse the same whatever the locale: about
    /// 2,100 instructions per call on the loop, which parses every call. With the C object in use, `duplocale` and
    /// `freelocale` do nothing and `newlocale` returns it: 118 ns against 19 ns per parse's switch in a C loop.
    private static func useCLocaleObject() {
        let allCategories =
            LC_CTYPE_MASK | LC_NUMERIC_MASK | LC_TIME_MASK | LC_COLLATE_MASK | LC_MONETARY_MASK | LC_MESSAGES_MASK
        if let cLocale = newlocale(allCategories, "C", nil) { uselocale(cLocale) }
    }

    /// Makes `loop` the main actor's executor.
    private static func runMainActor(on loop: any EventLoop) {
        let executor = MainLoopExecutor(loop)
        let reference = unsafeBitCast(executor.asUnownedSerialExecutor(), to: navhost_serial_executor.self)
        navhost_main_executor_replace(reference)
        // The runtime holds the executor unowned: it lives as long as the process.
        _ = Unmanaged.passRetained(executor)
    }

    /// Watches the main queue's wake-up descriptor (an eventfd of libdispatch's, watched through a duplicate so that
    /// NIO can own and close its own) and drains the queue whenever it fires.
    private static func serveMainQueue(on loop: any EventLoop) -> EventLoopFuture<Void> {
        let descriptor = dup(navhost_main_queue_wakeup_descriptor())
        guard descriptor >= 0 else {
            return loop.makeFailedFuture(IOError(errnoCode: errno, reason: "dup(main queue descriptor)"))
        }
        // Whatever was queued before the loop ran.
        navhost_main_queue_drain()
        return NIOPipeBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MainQueueDrainHandler())
                }
            }
            .takingOwnershipOfDescriptor(input: descriptor)
            .map { _ in }
    }
}

/// The main actor's executor: runs its jobs on the loop, and tells the runtime that code the loop runs outside a job
/// (a channel handler's callback) is on the main actor too.
///
/// The last part is what lets a Varlink connection start a call's task as the main actor's, synchronously, in the
/// read that brought the call (`Task.immediate`): the runtime asks the target executor whether it isolates the
/// current context, and NIO's own executor cannot answer (it only checks, fatally).
private final class MainLoopExecutor: SerialExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func isIsolatingCurrentContext() -> Bool? {
        loop.inEventLoop
    }

    func checkIsolated() {
        precondition(loop.inEventLoop, "expected to run on navhostd's main event loop")
    }
}

/// Drains the main queue once per burst of wake-ups (reading the eventfd resets it; what it held does not matter).
private final class MainQueueDrainHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelReadComplete(context: ChannelHandlerContext) {
        navhost_main_queue_drain()
    }
}
