package import Foundation

/// Reads what a child process writes to a pipe, on a thread of its own.
///
/// Not `FileHandle.readabilityHandler`: on Linux it watches the pipe with a libdispatch read source that is torn down
/// asynchronously, and tearing many down at once (a suite's navctl runs, in parallel) corrupts libdispatch's epoll
/// bookkeeping. It crashed the test process in `_dispatch_event_loop_drain` (2026-11-27; swift-corelibs-libdispatch
/// issue 949 describes the same). A blocking read registers nothing with libdispatch.
package enum PipeReader {
    /// Hands `consume` each chunk read from `handle` as it comes, and an empty chunk at the end of the input; stops
    /// reading early when `consume` returns `false`. At the end of the input the handle is closed: left to the
    /// `Pipe`, read ends stayed open long after their process ended (the navctl suites peaked at 275 open pipes in the
    /// test process, 113 since; a guess at why, not checked: Foundation's `Process` is not freed until waited for).
    package static func read(_ handle: FileHandle, _ consume: @escaping @Sendable (Data) -> Bool) {
        Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { try? handle.close() }
                if !consume(data) || data.isEmpty { return }
            }
        }.start()
    }
}
