public import NavHostWire

/// The sessions opened over the wire (`io.navhost.Navigation.OpenSession`), on disk, so that they exist again after
/// a restart, crash or not: `<state>/opened-sessions.json`.
///
/// ```json
/// {"format":"navhost.opened-sessions","version":1,"sessions":[{"name":"passenger","root":"products.list",
///  "parameters":{},"maxStackDepth":16}]}
/// ```
///
/// Each session's stack is in its own file (``SessionStateFile``); this file only says which sessions to open and at
/// which root. It is written whole, atomically and durably, on a serial queue off the main actor, in the order the
/// changes were made: the last write holds the newest list.
public final class OpenedSessionsFile: Sendable {
    /// One session opened over the wire: the `OpenSession` call that opened it, made again at start. On disk it
    /// is that call's parameters with the options flattened: `{"name", "root", "parameters", "maxStackDepth"?,
    /// "intentTimeoutMilliseconds"?}`.
    public typealias Entry = OpenSessionParameters

    private struct Envelope: Codable, Sendable {
        var format: String
        var version: Int
        var sessions: [Entry]
    }

    private static let format = "navhost.opened-sessions"
    private static let version = 1
    private let document: StateDocument<Envelope>

    /// The file's path.
    public var path: String { document.path }

    /// The file under the state folder `directory`.
    public convenience init(directory: String) {
        self.init(directory: directory, writes: DiskWrites())
    }

    /// The file under the state folder `directory`, written through `writes`: a test's double of the disk,
    /// ``DiskWrites`` itself, or navhostd's slowed writes under its test hook (``DelayedDiskWrites``).
    package init(directory: String, writes: any SessionFileWrites) {
        self.document = StateDocument(
            path: "\(directory)/opened-sessions.json",
            label: "navhost.opened-sessions",
            writes: writes
        ) { $0.format == Self.format && $0.version == Self.version }
    }

    /// Why the list could not be read.
    public typealias LoadFailure = StateDocumentLoadFailure

    /// The sessions the file lists; none when there is no file.
    ///
    /// A file that cannot be trusted (not JSON, another format) is moved aside as
    /// `opened-sessions.json.corrupt-<time>`, and none are listed.
    ///
    /// - Returns: ``LoadFailure`` when the file is there but cannot be read (permissions, I/O): the caller must not
    ///   overwrite it then.
    public func load() -> Result<[Entry], LoadFailure> {
        document.load().map { $0?.sessions ?? [] }
    }

    /// Writes `sessions` as the whole list, and returns once it is durable.
    ///
    /// It runs on the caller's executor until the write is queued, so lists saved one after the other on the main
    /// actor are written in that order: the last write holds the newest list.
    ///
    /// - Throws: The write's failure, in the system's words: a ``FileAccessError``, whose
    ///   ``FileAccessError/mayHaveReplaced`` says whether the new list may be in place all the same (renamed, then its
    ///   folder's `fsync` failed).
    nonisolated(nonsending) public func save(_ sessions: [Entry]) async throws {
        try await document.save(Envelope(format: Self.format, version: Self.version, sessions: sessions))
    }
}
