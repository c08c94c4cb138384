public import NIOCore

/// Runs Swift tasks on a NIO event loop.
///
/// A call's task prefers the event loop of its connection's channel (unless it runs on the main actor, see
/// `VarlinkServerConfiguration.runsHandlersOnMainActor`): when its handler suspends, it resumes on the thread that
/// reads and writes the socket, instead of hopping to the global concurrent pool and back. A handler that hops to
/// another actor comes back to the loop. navhostd gives one for its main loop to the sessions' durable writer, so a
/// call waiting for a write is resumed on the loop by the writer itself.
///
/// Work runs on the loop as NIO's own handlers do, so a handler must not block; one that computes for long delays
/// the other connections of its loop, as a slow channel handler would.
public final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    /// Creates an executor whose jobs run on `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
