import Glibc

/// Says on standard error what the tool was asking a plugin's code when that code crashed the tool (a trap, a bad
/// access): the crash report that follows names the code, not the route or the plugin it was asked about.
///
/// ``set(_:)`` keeps the note as C bytes and, the first time, puts a handler before the fatal signals' own (Swift's
/// backtracer, or the default action): it writes the note, gives the signal back its handler and raises it again.
/// The handler allocates nothing and takes no lock.
enum CrashNote {
    /// The signals a plugin's crash arrives as, by index: a function, since the handler may not touch an array.
    private static func signal(at index: Int) -> Int32 {
        switch index {
        case 0: SIGILL
        case 1: SIGTRAP
        case 2: SIGABRT
        case 3: SIGBUS
        case 4: SIGFPE
        default: SIGSEGV
        }
    }

    /// The handlers the signals had before (one per index of ``signal(at:)``), and the note written.
    nonisolated(unsafe) private static var state: UnsafeMutablePointer<State>?

    private struct State {
        var previous: (sigaction, sigaction, sigaction, sigaction, sigaction, sigaction)
        var note: UnsafeMutablePointer<CChar>?
        var noteLength: Int
    }

    /// Writes `note` (a line) to standard error if the process crashes before the next call; `nil` writes nothing.
    /// What was printed before is flushed first: a crash would lose it.
    static func set(_ note: String?) {
        fflush(nil)
        let state = installIfNeeded()
        let old = state.pointee.note
        state.pointee.note = note.map { strdup("\($0)\n") }
        state.pointee.noteLength = state.pointee.note.map { strlen($0) } ?? 0
        free(old)
    }

    // MARK: Private

    private static func installIfNeeded() -> UnsafeMutablePointer<State> {
        if let state { return state }
        let blank = sigaction()
        let created = UnsafeMutablePointer<State>.allocate(capacity: 1)
        created.initialize(
            to: State(previous: (blank, blank, blank, blank, blank, blank), note: nil, noteLength: 0)
        )
        state = created
        withUnsafeMutableBytes(of: &created.pointee.previous) { previous in
            let slots = previous.bindMemory(to: sigaction.self)
            for index in 0..<slots.count {
                let signal = signal(at: index)
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { signal in CrashNote.crashed(signal) }
                sigemptyset(&action.sa_mask)
                action.sa_flags = 0
                sigaction(signal, &action, slots.baseAddress! + index)
            }
        }
        return created
    }

    /// The signal handler: the note, then every signal's handler as it was before, and the signal again.
    private static func crashed(_ caught: Int32) {
        guard let state else { return }
        if let note = state.pointee.note { _ = write(STDERR_FILENO, note, state.pointee.noteLength) }
        withUnsafeMutableBytes(of: &state.pointee.previous) { previous in
            let slots = previous.bindMemory(to: sigaction.self)
            for index in 0..<slots.count { sigaction(signal(at: index), slots.baseAddress! + index, nil) }
        }
        raise(caught)
    }
}
