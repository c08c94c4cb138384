import Dispatch
import Glibc
import NavHostJSON

/// A small JSON document of the state folder that the daemon reads whole at start and writes whole on every change,
/// atomically and durably, in the order the changes were made: the lists behind ``OpenedSessionsFile`` and
/// ``PluginOverridesFile``.
///
/// `Envelope` is the whole document, its format name and version included: `isTrusted` says whether one read from
/// disk is of the format and version this daemon writes.
final class StateDocument<Envelope: Codable & Sendable>: Sendable {
    /// The file's path.
    let path: String

    private let isTrusted: @Sendable (Envelope) -> Bool
    private let queue: DispatchQueue
    /// Where the document is written: the disk, or a test's double.
    private let writes: any SessionFileWrites

    /// The document at `path`; its writes run one at a time on a queue labelled `label`, through `writes`.
    init(
        path: String,
        label: String,
        writes: any SessionFileWrites = DiskWrites(),
        isTrusted: @escaping @Sendable (Envelope) -> Bool
    ) {
        self.path = path
        self.isTrusted = isTrusted
        self.queue = DispatchQueue(label: label)
        self.writes = writes
    }

    /// The document; `nil` when there is no file.
    ///
    /// A file that cannot be trusted (not JSON, another format or version) is moved aside as
    /// `<file>.corrupt-<time>`, and `nil` is returned.
    ///
    /// - Returns: A failure, in words, when the file is there but cannot be read (permissions, I/O): the caller must
    ///   not overwrite it then.
    func load() -> Result<Envelope?, StateDocumentLoadFailure> {
        let bytes: [UInt8]?
        do {
            bytes = try FileIO.readFileIfPresent(path)
        } catch {
            return .failure(StateDocumentLoadFailure(detail: "\(error)"))
        }
        guard let bytes else { return .success(nil) }
        guard let json = try? JSONParser().parse(bytes),
            let envelope = try? JSONValueDecoder().decode(Envelope.self, from: json),
            isTrusted(envelope)
        else {
            do {
                _ = try FileIO.moveAside(path, suffix: "corrupt-\(time(nil))")
                return .success(nil)
            } catch {
                return .failure(StateDocumentLoadFailure(detail: "it is corrupt and cannot be moved aside: \(error)"))
            }
        }
        return .success(envelope)
    }

    /// Writes `envelope` as the whole document, and returns once it is durable.
    ///
    /// It runs on the caller's executor until the write is queued, so documents saved one after the other on one
    /// actor are written in that order: the last write holds the newest.
    ///
    /// - Throws: The write's failure, in the system's words: a ``FileAccessError``, whose
    ///   ``FileAccessError/mayHaveReplaced`` says whether the new document may be in place all the same.
    nonisolated(nonsending) func save(_ envelope: Envelope) async throws {
        let bytes = try JSONValueEncoder().encode(envelope).serializedBytes()
        let (path, writes) = (self.path, self.writes)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try JSONNesting.check(bytes, for: path)
                    try writes.replace(path, with: bytes)
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }
}

/// Why a state document could not be read.
public struct StateDocumentLoadFailure: Error, Sendable {
    /// What went wrong, in words.
    public var detail: String
}
