import Glibc
import NavHostKit

/// One session's record on disk, in an envelope that says what it is and proves it is whole.
///
/// ```json
/// {"format":"navhost.session","version":1,"sha256":"…","record":{…}}
/// ```
///
/// The checksum covers the record's serialized bytes. A file that does not parse, whose checksum does not match, or
/// whose version this daemon does not know, is not trusted: ``load()`` moves it aside as
/// `<name>.json.<reason>-<timestamp>` and reports what happened, and the session starts fresh.
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

    /// The format version this daemon writes and reads.
    public static let version: Int64 = 1
    private static let format = "navhost.session"

    /// The file's path.
    public let path: String

    /// The file of session `name` under `directory`.
    public init(directory: String, session name: String) {
        self.path = "\(directory)/sessions/\(Self.fileName(for: name))"
    }

    /// Writes `record` durably: after this returns, a crash does not lose it.
    public func save(_ record: SessionRecord) throws {
        let recordJSON = try JSONValueEncoder().encode(record)
        let recordBytes = try recordJSON.serializedBytes()
        let envelope: JSONValue = [
            "format": .string(Self.format),
            "version": .int(Self.version),
            "sha256": .string(SHA256Digest.hex(of: recordBytes)),
            "record": recordJSON,
        ]
        try FileIO.writePrivately(envelope.serializedBytes(), to: path)
    }

    /// Reads the record; a file that cannot be trusted is moved aside, named with `now` (seconds since 1970; the
    /// current time when `nil`).
    public func load(now: Int? = nil) throws -> Loaded {
        guard let bytes = try FileIO.readFileIfPresent(path) else { return .none }
        switch Self.decode(bytes) {
        case .success(let record):
            return .record(record)
        case .failure(let error):
            let stamp = now ?? time(nil)
            let movedTo = try FileIO.moveAside(path, suffix: "\(error.reason.rawValue)-\(stamp)")
            return .discarded(reason: error.reason, movedTo: movedTo)
        }
    }

    private static func decode(_ bytes: [UInt8]) -> Result<SessionRecord, DiscardReasonError> {
        guard let envelope = try? JSONParser().parse(bytes), envelope["format"] == .string(format) else {
            return .failure(DiscardReasonError(.corrupt))
        }
        guard envelope["version"] == .int(version) else { return .failure(DiscardReasonError(.unknownVersion)) }
        guard let recordJSON = envelope["record"], let recordBytes = try? recordJSON.serializedBytes(),
            envelope["sha256"] == .string(SHA256Digest.hex(of: recordBytes)),
            let record = try? JSONValueDecoder().decode(SessionRecord.self, from: recordJSON)
        else {
            return .failure(DiscardReasonError(.corrupt))
        }
        return .success(record)
    }

    /// Session names are free text; file names are not. Keep letters, digits, `-` and `_`; escape the rest.
    static func fileName(for session: String) -> String {
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
        return name + ".json"
    }
}

private struct DiscardReasonError: Error {
    var reason: SessionStateFile.DiscardReason
    init(_ reason: SessionStateFile.DiscardReason) { self.reason = reason }
}
