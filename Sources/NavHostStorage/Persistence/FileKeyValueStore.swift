import Glibc
public import Logging
public import NavHostKit

/// A feature's durable key-value store: one JSON object in one file, `<state-dir>/store/<Feature>.json`.
///
/// Each write replaces the whole file atomically (a temporary file beside it, `fsync`, `rename`, `fsync` of the
/// folder), so that after a crash the file holds either the values before the write or after it, and a write that
/// returned is on disk. The file is read once, on first use; the store assumes it is the file's only writer.
///
/// A file that is not a JSON object (cut short by a full disk, edited by hand) is moved aside to
/// `<Feature>.json.corrupt-<seconds since 1970>`, logged, and the store starts empty: the feature keeps working, and
/// the operator keeps the old bytes.
public actor FileKeyValueStore: KeyValueStore {
    // MARK: Private Properties

    private var values: JSONObject?
    private let logger: Logger
    /// Replaces the file at a path with bytes, durably: the disk, or a test's double.
    private let replaceFile: @Sendable (_ bytes: [UInt8], _ path: String) throws(FileAccessError) -> Void

    // MARK: Public Properties

    /// The file the values live in.
    public nonisolated let path: String

    // MARK: Initialization

    /// Creates the store of the values in the file at `path`; the file and its folder are created on first write.
    public init(path: String, logger: Logger) {
        // Not larger than the daemon reads back (`FileIO.largestFile`): the store would then throw at every start.
        self.init(path: path, logger: logger) { bytes, path throws(FileAccessError) in
            try FileIO.writePrivately(bytes, to: path)
        }
    }

    /// Creates the store of the values in the file at `path`, written through `writes` (a test's double of the disk).
    package init(path: String, logger: Logger, writes: any SessionFileWrites) {
        self.init(path: path, logger: logger) { bytes, path throws(FileAccessError) in
            try writes.replace(path, with: bytes)
        }
    }

    private init(
        path: String,
        logger: Logger,
        replaceFile: @escaping @Sendable (_ bytes: [UInt8], _ path: String) throws(FileAccessError) -> Void
    ) {
        self.path = path
        self.logger = logger
        self.replaceFile = replaceFile
    }

    /// Creates the store of feature `feature` in the folder `directory`: the file `<directory>/<feature>.json`.
    public init(directory: String, feature: String, logger: Logger) {
        self.init(path: "\(directory)/\(feature).json", logger: logger)
    }

    // MARK: Public Functions

    /// The value stored under `key`, or `nil`; the file is read on first use.
    ///
    /// - Throws: ``FileAccessError`` when the file exists but cannot be read, or a corrupt one cannot be moved aside.
    public func value(forKey key: String) throws -> JSONValue? {
        try loadedValues()[key]
    }

    /// Stores `value` under `key`; returns once the file holding it is on disk.
    ///
    /// - Throws: ``FileAccessError`` when the file cannot be written, or would not be read back (larger than
    ///   ``FileIO/largestFile``, or nested deeper than ``JSONNesting/deepest``); the store then keeps the values it
    ///   had, on disk too, unless writing them back over a write that may be in place failed as well.
    public func setValue(_ value: JSONValue, forKey key: String) throws {
        var changed = try loadedValues()
        changed[key] = value
        try persist(changed)
    }

    /// Removes the value under `key`; writes the file only when there was one.
    public func removeValue(forKey key: String) throws {
        var changed = try loadedValues()
        guard changed.removeValue(forKey: key) != nil else { return }
        try persist(changed)
    }

    /// Replaces the value under `key` with what `transform` makes of it, as one step, and returns it once the file
    /// holding it is on disk: no other call of the store runs between the read and the write (the actor does not
    /// suspend in between). A `nil` result removes the value; the file is written only when the value changes.
    ///
    /// - Throws: What `transform` throws, or ``FileAccessError`` when the file cannot be written; the store then
    ///   keeps the values it had, as ``setValue(_:forKey:)`` says.
    public func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) throws -> JSONValue? {
        var changed = try loadedValues()
        let updated = try transform(changed[key])
        guard updated != changed[key] else { return updated }
        changed[key] = updated
        try persist(changed)
        return updated
    }

    /// Every key and value, in the order they were first stored.
    public func allValues() throws -> JSONObject {
        try loadedValues()
    }
}

// MARK: - Private Functions

extension FileKeyValueStore {
    private func loadedValues() throws -> JSONObject {
        if let values { return values }
        let loaded = try readFile()
        values = loaded
        return loaded
    }

    private func readFile() throws -> JSONObject {
        guard FileIO.kind(of: path) != nil else { return [:] }
        let bytes = try FileIO.readFile(path)
        if let members = (try? JSONParser().parse(bytes))?.objectValue { return members }
        let aside = try FileIO.moveAside(path, suffix: "corrupt-\(time(nil))")
        logger.warning(
            "Moved aside a store file that is not a JSON object; starting empty",
            metadata: ["navhost.store.path": "\(path)", "navhost.store.movedTo": "\(aside)"]
        )
        return [:]
    }

    /// Writes `changed` to the file, and keeps it only once it is on disk.
    private func persist(_ changed: JSONObject) throws {
        let bytes = try JSONValue.object(changed).serializedBytes()
        // Not nested deeper than the daemon reads back either: the whole store would be set aside at the next start.
        try JSONNesting.check(bytes, for: path)
        do {
            try replaceFile(bytes, path)
        } catch {
            values = valuesInTheFile(after: error)
            throw error
        }
        values = changed
    }

    /// The values the file holds after a write of it failed (`failure`), once they are, as far as the disk lets
    /// them, the values held before it; `nil` when they are not known here, and the next call reads the file again.
    ///
    /// A write that failed after renaming the new file into place (its folder's `fsync` failed,
    /// ``FileAccessError/mayHaveReplaced``) may have left the values its caller was told are not stored in the file,
    /// where a crash right after would have a restart read them: the values held before are written back over them.
    /// When that write fails before it replaced the file, the file holds the new values.
    private func valuesInTheFile(after failure: FileAccessError) -> JSONObject? {
        guard failure.mayHaveReplaced else { return values }
        guard let values, let bytes = try? JSONValue.object(values).serializedBytes() else { return nil }
        do {
            try replaceFile(bytes, path)
            return values
        } catch {
            if error.mayHaveReplaced { return values }
            logger.error(
                "Cannot write back a store's values over a write that failed and may be in place",
                metadata: ["navhost.store.path": "\(path)", "error": "\(error)"]
            )
            return nil
        }
    }
}
