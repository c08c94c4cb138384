package import Foundation

/// Reads what a child process writes to a pipe, on a thread of its own.
///
/// Not `FileHandle.readabilityHandler`: on Linux it watches the pipe with a libdispatch read source that is torn down
/// asynchronously, and tearing many down at once (a suite's navctl runs, in parallel) corrupts libdispatch's epoll
/// bookkeeping. It crashed the test process in `_dispatch_event_loop_drain` (2026-11-27; swift-corelibs-libdispatch
/// issue 949 describes the same). A blocking read registers nothing with libdispatch.
package enum PipeReader {
    /// Hands `consume` each chunk read from `handle` as it comes, and an empty chunk at the end of the input; stops
    /// reading early when `consume` returns `false`. At the end of the input the handle is closed: a `Pipe` whose
    /// `Process` is never waited for is not freed, and its read end stayed open (about 280 of them after the navctl
    /// suites).
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
