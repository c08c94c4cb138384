import NavHostJSON
import NavHostStorage
import NavHostWire

/// A session's flight recording written to disk as it is made, so that it outlives the daemon (a crash included):
/// `<directory>/<session>.navrec`, and the one before it, `<session>.navrec.1`: that name ends as no session's current
/// file does, where `<session>.1.navrec` was the current file of the session named `<session>.1`.
///
/// Each file is a whole recording (docs/recording.md): a header whose base is the stack before its first call, then
/// one line per call, written when the call's stack is settled, that is when the next call comes (the latest call of
/// a session that stops is written then; one a crash cut short is not). When a file holds `capacity` calls, or when
/// the session opens again after a restart, it becomes `<session>.navrec.1` and a new one starts: the disk holds at
/// most two files per session. Lines are appended without `fsync`: this is a diagnostic, not a promise.
@MainActor
final class FlightRecorderFile {
    private let path: String
    private let previousPath: String
    private let capacity: Int
    private let header: SessionRecording.Header
    private let plugins: @MainActor () -> [SessionRecording.Plugin]
    private let logger: (String) -> Void
    private var calls = 0
    private var started = false
    private var failed = false

    /// Prepares the files of `header.session` in `directory`; the first line is written with the first call.
    init(
        directory: String,
        header: SessionRecording.Header,
        capacity: Int,
        plugins: @escaping @MainActor () -> [SessionRecording.Plugin],
        logger: @escaping (String) -> Void
    ) {
        self.path = "\(directory)/\(header.session).navrec"
        self.previousPath = "\(directory)/\(header.session).navrec.1"
        self.header = header
        self.capacity = max(capacity, 1)
        self.plugins = plugins
        self.logger = logger
    }

    /// Writes `call`, whose stack is settled, starting a file from `base` (the stack before it) when none is open
    /// or the open one is full.
    func write(_ call: RecordedCall, after base: SessionRecording.Base) {
        guard !failed else { return }
        do {
            if !started || calls >= capacity { try startFile(from: base) }
            try FileIO.append(Array((try JSONValueEncoder().encode(call).serializedString() + "\n").utf8), to: path)
            calls += 1
        } catch {
            // One message, then nothing more: the session goes on without its copy on disk.
            failed = true
            logger("Cannot write the flight recording to \(path), it is kept in memory only: \(error)")
        }
    }

    private func startFile(from base: SessionRecording.Base) throws {
        if FileIO.kind(of: path) != nil { try FileIO.move(path, to: previousPath) }
        var header = self.header
        header.base = base
        header.plugins = plugins()
        try FileIO.append(Array((try JSONValueEncoder().encode(header).serializedString() + "\n").utf8), to: path)
        started = true
        calls = 0
    }
}
