import ArgumentParser
import CMainQueue
import Glibc

// navhostd keeps its main thread for the main actor (Sources/CMainQueue/include/main_queue.h says why): the command
// line is parsed here, the daemon runs in a task, and the main thread drains the main queue until the process exits.

let command = NavHostDaemonCommand.parseOrExit()
Task {
    do {
        try await command.run()
        exit(EXIT_SUCCESS)
    } catch {
        NavHostDaemonCommand.exit(withError: error)
    }
}
navhost_main_queue_run()
