import Glibc

/// Says on standard error what the tool was asking a plugin's code when that code crashed the tool (a trap, a bad
/// access, a stack overflow): the crash report that follows names the code, not the route or the plugin it was asked
/// about.
///
/// ``set(_:)`` keeps the note as C bytes and, the first time, puts a handler before the fatal signals' own (Swift's
/// backtracer, or the default action), on an alternate stack so that an overflowed one does not stop it. The handler
/// writes the note and gives every signal back its handler; a fault then happens again on return, with its own
/// address, for that handler to report, and a `SIGABRT` or `SIGTRAP` is raised again. The handler allocates nothing and takes no
/// lock; notes are never freed, so one read by a crash that races ``set(_:)`` is still whole.
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

    /// The alternate stack's size: room for `write` and `sigaction`, and for Swift's backtracer, which has its own.
    private static let alternateStackSize = 64 << 10

    /// Writes `note` (a line) to standard error if the process crashes before the next call; `nil` writes nothing.
    /// What was printed before is flushed first: a crash would lose it.
    static func set(_ note: String?) {
        fflush(nil)
        let state = installIfNeeded()
        // The length first: a crash in between writes nothing rather than too much.
        state.pointee.noteLength = 0
        state.pointee.note = note.map { strdup("\($0)\n") }
        state.pointee.noteLength = state.pointee.note.map { strlen($0) } ?? 0
    }

    // MARK: Private

    private static func installIfNeeded() -> UnsafeMutablePointer<State> {
        if let state { return state }
        useAnAlternateStack()
        let blank = sigaction()
        let created = UnsafeMutablePointer<State>.allocate(capacity: 1)
        created.initialize(
            to: State(previous: (blank, blank, blank, blank, blank, blank), note: nil, noteLength: 0)
        )
        state = created
        withUnsafeMutableBytes(of: &created.pointee.previous) { previous in
            let slots = previous.bindMemory(to: sigaction.self)
            for index in 0..<slots.count {
                var action = sigaction()
                action.__sigaction_handler.sa_sigaction = { caught, _, _ in CrashNote.crashed(caught) }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_ONSTACK | SA_SIGINFO
                sigaction(signal(at: index), &action, slots.baseAddress! + index)
            }
        }
        return created
    }

    /// Gives the thread an alternate signal stack when it has none (Swift's backtracer sets one up when it is on).
    private static func useAnAlternateStack() {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else { return }
        var alternate = stack_t()
        alternate.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        alternate.ss_size = alternateStackSize
        alternate.ss_flags = 0
        sigaltstack(&alternate, nil)
    }

    /// The signal handler: the note, then every signal's handler as it was before; a `SIGABRT` or `SIGTRAP` raised
    /// again, a fault by returning to the instruction that made it.
    private static func crashed(_ caught: Int32) {
        guard let state else { return }
        if let note = state.pointee.note { _ = write(STDERR_FILENO, note, state.pointee.noteLength) }
        withUnsafeMutableBytes(of: &state.pointee.previous) { previous in
            let slots = previous.bindMemory(to: sigaction.self)
            for index in 0..<slots.count { sigaction(signal(at: index), slots.baseAddress! + index, nil) }
        }
        // An `int3` returns past itself, and an abort does not come back: raised again, those two.
        if caught == SIGABRT || caught == SIGTRAP { raise(caught) }
    }
}
