import ArgumentParser
import Glibc

// navhostd keeps its main thread (Sources/CMainQueue/include/main_queue.h says why): the command line is parsed here,
// the main thread becomes the event loop that serves the sockets and the main actor, and the daemon runs in a task
// that prefers that loop.

let command = NavHostDaemonCommand.parseOrExit()
MainThreadEventLoop.run { loop in
    Task {
        do {
            try await command.run(eventLoop: loop)
            exit(EXIT_SUCCESS)
        } catch is LoggedFailure {
            exit(EXIT_FAILURE)
        } catch {
            NavHostDaemonCommand.exit(withError: error)
        }
    }
}
