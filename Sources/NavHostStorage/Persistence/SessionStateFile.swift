import Glibc
import NavHostKit

/// One session's record on disk: a snapshot, and a journal of the records written since.
///
/// The snapshot, `<name>.json`, holds one record in an envelope that says what it is and proves it is whole:
///
/// ```json
/// {"format":"navhost.session","version":2,"generation":"…","sha256":"…","record":{…}}
/// ```
///
/// The journal, `<name>.journal`, holds one such envelope per line, each a whole record written after the
/// snapshot, then zeros to its end; the newest line that is whole and of the snapshot's `generation` is the session's
/// record. Writing a line costs one `pwrite` and one `fdatasync` (≈ 0.09 ms on the development machine's ext4),
/// where replacing the snapshot costs a temporary file, two `fsync`s and a rename (≈ 0.39 ms): most writes go to the
/// journal; the snapshot is written at a session's first write of a daemon's run, after a failed write, and when the
/// journal has grown past ``journalLimit``. A new snapshot gets a new generation, which retires every line of the
/// journal before it.
///
/// The journal's file is made ``journalCapacity`` bytes long, zeros after its lines, by the first line of each
/// generation: the lines after it are written over blocks the file already has, so their `fdatasync` flushes the
/// data alone, with no change of the file's size or blocks for the file system to commit (an append took ≈ 0.13 ms).
///
/// The checksum covers the record's serialized bytes. A snapshot that does not parse, whose checksum does not match,
/// or whose version this daemon does not know, is not trusted: ``load()`` moves it (and the journal) aside as
/// `<name>.json.<reason>-<timestamp>` and reports what happened, and the session starts fresh. A journal line that
/// does not verify is passed over for the one before it: after a crash during a write that is the line being
/// written, whose change was never acknowledged.
public struct SessionStateFile: Sendable {
    /// What reading the file found.
    public enum Loaded: Sendable, Equatable {
        /// No file: a first start.
        case none
        /// A whole record.
        case record(SessionRecord)
        /// A file that could not be trusted, moved aside to `movedTo`.
        case discarded(reason: DiscardReason, movedTo: String)
    }

    /// Why a file was not trusted.
    public enum DiscardReason: String, Sendable, Equatable {
        /// Not JSON, cut short, or its checksum does not match.
        case corrupt
        /// Written by a version of the format this daemon does not read.
        case unknownVersion
    }

    /// The format version this daemon writes: 2 added the generation and the journal.
    public static let version: Int64 = 2
    /// The versions this daemon reads: a version 1 snapshot (no generation) has no journal.
    public static let readableVersions: [Int64] = [1, 2]
    private static let format = "navhost.session"

    /// Where writing the journal stands: the generation its lines carry and how many bytes it holds.
    public struct JournalPosition: Sendable, Equatable {
        /// The generation of the snapshot the journal continues.
        public var generation: String
        /// The size of the journal's lines in bytes, counted from the generation's first line: 0 right after the
        /// snapshot, when the file may still hold lines of an earlier generation, which the next line's write zeroes.
        public var size: Int
    }

    /// The journal's size past which the next write replaces the snapshot instead of adding a line.
    public static let journalLimit = 64 << 10

    /// The journal file's size, as the first line of a generation makes it: ``journalLimit`` and room for the line
    /// that crosses it. A longer line makes the file longer.
    public static let journalCapacity = journalLimit + (8 << 10)

    /// The snapshot file's path.
    public let path: String
    /// The journal's path.
    public let journalPath: String
    /// Where the snapshot and the journal's lines are written: the disk, or a test's double that fails as a disk
    /// can, after its bytes landed.
    let writes: any SessionFileWrites

    /// The file of session `name` under `directory`.
    public init(directory: String, session name: String) {
        self.init(directory: directory, session: name, writes: DiskWrites())
    }

    /// The file of session `name` under `directory`, written through `writes`.
    package init(directory: String, session name: String, writes: any SessionFileWrites) {
        self.init(base: "\(directory)/sessions/\(Self.baseName(for: name))", writes: writes)
    }

    private init(base: String, writes: any SessionFileWrites = DiskWrites()) {
        self.path = base + ".json"
        self.journalPath = base + ".journal"
        self.writes = writes
    }

    /// The record of every session saved in `sessions` (a state folder's `sessions`), read as ``load(now:)`` reads one
    /// but changing nothing: a file that cannot be trusted is left where it is and named in `untrusted`, and the
    /// records kept aside (`<name>.json.lost-…`) are passed over. For a tool that looks at a daemon's state, running
    /// or not: a record is whole, but may be a change or two older than the daemon's (a new snapshot written between
    /// reading the snapshot and its journal).
    ///
    /// - Throws: When the folder cannot be read.
    public static func records(in sessions: String) throws -> (records: [SessionRecord], untrusted: [String]) {
        var records: [SessionRecord] = []
        var untrusted: [String] = []
        for name in try FileIO.directoryEntries(sessions).filter({ $0.hasSuffix(".json") }).sorted() {
            let file = SessionStateFile(base: "\(sessions)/\(name.dropLast(".json".count))")
            if let record = try file.peek() { records.append(record) } else { untrusted.append(file.path) }
        }
        return (records, untrusted)
    }

    /// The record ``load(now:)`` would read, or `nil` when there is no file or it cannot be trusted; nothing is moved.
    private func peek() throws -> SessionRecord? {
        guard let bytes = try FileIO.readFileIfPresent(path), case .success(let snapshot) = Self.decode(bytes[...])
        else {
            return nil
        }
        return try newestRecord(after: snapshot)
    }

    /// The newest record: the journal's newest whole line of the snapshot's generation, or the snapshot's own.
    private func newestRecord(after snapshot: (record: SessionRecord, generation: String?)) throws -> SessionRecord {
        guard let generation = snapshot.generation, let journal = try FileIO.readFileIfPresent(journalPath) else {
            return snapshot.record
        }
        return Self.lastRecord(in: journal, generation: generation) ?? snapshot.record
    }

    /// Writes `record` durably as a new snapshot: after this returns, a crash does not lose it.
    ///
    /// - Returns: Where to write the records that follow it.
    @discardableResult
    public func save(_ record: SessionRecord) throws -> JournalPosition {
        let generation = Self.newGeneration()
        try writes.replace(path, with: Self.envelope(of: record, generation: generation, for: path))
        return JournalPosition(generation: generation, size: 0)
    }

    /// Writes `record` durably as the next line of the journal at `position`, or as a new snapshot when there is no
    /// position yet, the journal has grown past ``journalLimit``, the line would take the journal past what the daemon
    /// reads back (``FileIO/largestFile``; a snapshot of the record may still fit), or the journal is gone since its
    /// generation began (deleted or moved away: a line written into a new file, after the zeros before it, would not
    /// be read).
    ///
    /// - Returns: Where to write the next record.
    public func write(_ record: SessionRecord, after position: JournalPosition?) throws -> JournalPosition {
        guard let position, position.size < Self.journalLimit else { return try save(record) }
        // Named by the session's file, which a too deep record is refused for, whether it would go to the journal
        // or, past its limit, to a snapshot.
        var bytes = try Self.envelope(of: record, generation: position.generation, for: path)
        bytes.append(UInt8(ascii: "\n"))
        let end = position.size + bytes.count
        guard end <= FileIO.largestFile else { return try save(record) }
        // A generation's first line: the rest of the file zeroed in the same write, which retires the lines of the
        // generation before and gives the lines after it the blocks they are written over.
        let isFirstLine = position.size == 0
        let lineLength = bytes.count
        if isFirstLine { bytes.append(contentsOf: repeatElement(0, count: max(0, Self.journalCapacity - bytes.count))) }
        let written: Bool
        do {
            // The line after its zeros: a disk too full for them (they give the file its blocks) fails the write with
            // no line in the file. Written first, the line was there, whole, and a restart read the change the
            // daemon had taken back and answered `StorageFailed` for.
            written = try writes.write(
                bytes,
                at: position.size,
                to: journalPath,
                cuttingTo: isFirstLine ? bytes.count : nil,
                create: isFirstLine,
                headLast: isFirstLine ? lineLength : 0
            )
        } catch {
            // What reached the file of a line whose write failed (its `fdatasync` did) is zeroed, as far as the file
            // takes it: a crash of the daemon then reads the line before it, not a change it took back.
            _ = try? writes.write(
                [UInt8](repeating: 0, count: lineLength),
                at: position.size,
                to: journalPath,
                cuttingTo: nil,
                create: false,
                headLast: 0
            )
            throw error
        }
        guard written else { return try save(record) }
        return JournalPosition(generation: position.generation, size: end)
    }

    /// Writes `record` durably beside the session's file, as a snapshot of its own, `<name>.json.<suffix>`: a
    /// record the session is about to lose screens of. Moved to `<name>.json` while the daemon is stopped (the
    /// journal, of another generation, is then passed over), it is the session's record again.
    ///
    /// - Returns: The path written.
    public func keepAside(_ record: SessionRecord, suffix: String) throws -> String {
        let aside = "\(path).\(suffix)"
        try FileIO.writePrivately(Self.envelope(of: record, generation: Self.newGeneration(), for: aside), to: aside)
        return aside
    }

    /// Reads the record: the snapshot's, or the newest whole line of its generation in the journal. A snapshot that
    /// cannot be trusted is moved aside with the journal, named with `now` (seconds since 1970; the current time
    /// when `nil`).
    public func load(now: Int? = nil) throws -> Loaded {
        guard let bytes = try FileIO.readFileIfPresent(path) else { return .none }
        switch Self.decode(bytes[...]) {
        case .success(let snapshot):
            return .record(try newestRecord(after: snapshot))
        case .failure(let error):
            let stamp = now ?? time(nil)
            let suffix = "\(error.reason.rawValue)-\(stamp)"
            let movedTo = try FileIO.moveAside(path, suffix: suffix)
            if FileIO.kind(of: journalPath) != nil { _ = try FileIO.moveAside(journalPath, suffix: suffix) }
            return .discarded(reason: error.reason, movedTo: movedTo)
        }
    }

    /// The record of the journal's newest whole line of `generation`, read from the end: loading a session costs one
    /// line, not the whole journal (170 lines took 0.6 ms to read from the start).
    ///
    /// A line that does not verify — the last one, cut short by a crash during its write, or one damaged later — is
    /// skipped for the one before it. A whole line of another generation ends the search: the journal holds lines of
    /// one generation at a time (the first line after a snapshot zeroes the rest of the file), so one of an older
    /// generation means a crash came between a new snapshot and the end of its first line's write, and the snapshot
    /// is the record.
    private static func lastRecord(in journal: [UInt8], generation: String) -> SessionRecord? {
        let feed = UInt8(ascii: "\n")
        // Bytes after the last line feed are the zeros the file was made with, or a line cut short, or both.
        guard var end = journal.lastIndex(of: feed) else { return nil }
        while true {
            let start = journal[..<end].lastIndex(of: feed).map { $0 + 1 } ?? journal.startIndex
            if case .success(let entry) = decode(journal[start..<end]) {
                return entry.generation == generation ? entry.record : nil
            }
            guard start > journal.startIndex else { return nil }
            end = start - 1
        }
    }

    /// The envelope of `record` as JSON text.
    ///
    /// The record is written once as text (``SessionRecord/appendJSON(to:)``, no JSON value or json-c tree built),
    /// hashed, and placed last in the envelope as it was hashed: the other members are hex digits and constants, which
    /// need no escaping.
    ///
    /// - Throws: ``FileAccessError/Code/tooDeep`` for a record, to be written to `path`, nested deeper than the daemon
    ///   reads back (a restorable state nested that far).
    private static func envelope(of record: SessionRecord, generation: String, for path: String) throws -> [UInt8] {
        var recordBytes: [UInt8] = []
        recordBytes.reserveCapacity(512)
        try record.appendJSON(to: &recordBytes)
        try JSONNesting.check(recordBytes, enclosedIn: 1, for: path)
        var bytes: [UInt8] = []
        // The head, the generation's 16 digits, the digest's 64, the record, the closing brace and a line feed.
        bytes.reserveCapacity(envelopeHead.count + 128 + recordBytes.count)
        bytes.append(contentsOf: envelopeHead)
        bytes.append(contentsOf: generation.utf8)
        bytes.append(contentsOf: #"","sha256":""#.utf8)
        recordBytes.withUnsafeBytes { SHA256Digest.appendHex(of: $0, to: &bytes) }
        bytes.append(contentsOf: #"","record":"#.utf8)
        bytes.append(contentsOf: recordBytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// What every envelope starts with, up to its generation's value.
    private static let envelopeHead = Array(#"{"format":"\#(format)","version":\#(version),"generation":""#.utf8)

    /// The bytes of `value` the checksum covers: its compact JSON text, as written and as checked.
    private static func serialized(_ value: JSONValue) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try value.appendSerializedBytes(to: &bytes)
        return bytes
    }

    /// 16 random hex digits: a snapshot's generation, which no earlier snapshot of the session had.
    private static func newGeneration() -> String {
        let number = UInt64.random(in: .min ... .max)
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func decode(
        _ bytes: ArraySlice<UInt8>
    ) -> Result<(record: SessionRecord, generation: String?), DiscardReasonError> {
        guard let envelope = try? JSONParser().parse(bytes), envelope["format"] == .string(format) else {
            return .failure(DiscardReasonError(.corrupt))
        }
        guard let version = envelope["version"]?.intValue, readableVersions.contains(version) else {
            return .failure(DiscardReasonError(.unknownVersion))
        }
        guard let recordJSON = envelope["record"], let recordBytes = try? serialized(recordJSON),
            envelope["sha256"] == .string(SHA256Digest.hex(of: recordBytes)),
            let record = try? JSONValueDecoder().decode(SessionRecord.self, from: recordJSON)
        else {
            return .failure(DiscardReasonError(.corrupt))
        }
        return .success((record, envelope["generation"]?.stringValue))
    }

    /// Session names are free text; file names are not. Keep letters, digits, `-` and `_`; escape the rest.
    static func baseName(for session: String) -> String {
        var name = ""
        for scalar in session.unicodeScalars {
            if ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || scalar == "-" || scalar == "_"
            {
                name.unicodeScalars.append(scalar)
            } else {
                name += "%" + String(scalar.value, radix: 16)
            }
        }
        return name
    }
}

/// The two writes a session's file makes, at one seam: ``DiskWrites`` on the disk; a test's double can fail as a disk
/// does, with the bytes on it or not (an `fsync` that fails with `EIO` after a rename, or after a `pwrite`).
package protocol SessionFileWrites: Sendable {
    /// Replaces the file at `path` with `bytes`, durably: ``FileIO/writePrivately(_:to:)``.
    func replace(_ path: String, with bytes: [UInt8]) throws(FileAccessError)

    /// Writes `bytes` into the file at `path` at `offset`, durably:
    /// ``FileIO/writeDurably(_:at:to:cuttingTo:create:headLast:mode:)``.
    func write(
        _ bytes: [UInt8],
        at offset: Int,
        to path: String,
        cuttingTo size: Int?,
        create: Bool,
        headLast: Int
    ) throws(FileAccessError) -> Bool
}

/// ``SessionFileWrites`` on the disk, through ``FileIO``.
package struct DiskWrites: SessionFileWrites {
    package init() {}

    package func replace(_ path: String, with bytes: [UInt8]) throws(FileAccessError) {
        try FileIO.writePrivately(bytes, to: path)
    }

    package func write(
        _ bytes: [UInt8],
        at offset: Int,
        to path: String,
        cuttingTo size: Int?,
        create: Bool,
        headLast: Int
    ) throws(FileAccessError) -> Bool {
        try FileIO.writeDurably(bytes, at: offset, to: path, cuttingTo: size, create: create, headLast: headLast)
    }
}

private struct DiscardReasonError: Error {
    var reason: SessionStateFile.DiscardReason
    init(_ reason: SessionStateFile.DiscardReason) { self.reason = reason }
}
