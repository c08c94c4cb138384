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

    // MARK: Public Properties

    /// The file the values live in.
    public nonisolated let path: String

    // MARK: Initialization

    /// Creates the store of the values in the file at `path`; the file and its folder are created on first write.
    public init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
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
    /// - Throws: ``FileAccessError`` when the file cannot be written; the store then keeps the values it had.
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
    ///   keeps the values it had.
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
    ///
    /// A write that fails may still have replaced the file (the folder's sync after the rename failed): what the file
    /// holds is then not known here, and the next call reads it again rather than trust the values kept.
    private func persist(_ changed: JSONObject) throws {
        let bytes = try JSONValue.object(changed).serializedBytes()
        do {
            try FileIO.makeDirectories(FileIO.parentDirectory(of: path))
            try FileIO.writeAtomically(bytes, to: path, mode: 0o600)
        } catch {
            values = nil
            throw error
        }
        values = changed
    }
}
