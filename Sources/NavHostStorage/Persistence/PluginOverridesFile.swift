/// What control clients changed of the plugins the daemon loads, on disk, so that it holds after a restart, crash or
/// not: `<state>/plugin-overrides.json`.
///
/// ```json
/// {"format":"navhost.plugin-overrides","version":1,"loaded":["/opt/orders/Orders"],
///  "unloaded":["/usr/lib/navhost/plugins/Settings"]}
/// ```
///
/// At start the daemon loads every plugin of its plugins folder but the `unloaded` ones, then the `loaded` ones, in
/// the order they were loaded. It is written whole, atomically and durably, before `Load` or `Unload` answers.
public final class PluginOverridesFile: Sendable {
    private struct Envelope: Codable, Sendable {
        var format: String
        var version: Int
        var loaded: [String]
        var unloaded: [String]
    }

    private static let format = "navhost.plugin-overrides"
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
            path: "\(directory)/plugin-overrides.json",
            label: "navhost.plugin-overrides",
            writes: writes
        ) { $0.format == Self.format && $0.version == Self.version }
    }

    /// What the file holds; no overrides when there is no file.
    ///
    /// A file that cannot be trusted (not JSON, another format) is moved aside as
    /// `plugin-overrides.json.corrupt-<time>`, and there are none.
    ///
    /// - Returns: A failure when the file is there but cannot be read (permissions, I/O): the caller must not
    ///   overwrite it then.
    public func load() -> Result<PluginOverrides, StateDocumentLoadFailure> {
        document.load().map { envelope in
            PluginOverrides(loaded: envelope?.loaded ?? [], unloaded: envelope?.unloaded ?? [])
        }
    }

    /// Writes `overrides` as the whole file, and returns once it is durable. Files saved one after the other on the
    /// main actor are written in that order.
    ///
    /// - Throws: The write's failure, in the system's words: a ``FileAccessError``, whose
    ///   ``FileAccessError/mayHaveReplaced`` says whether the new file may be in place all the same.
    nonisolated(nonsending) public func save(_ overrides: PluginOverrides) async throws {
        try await document.save(
            Envelope(
                format: Self.format,
                version: Self.version,
                loaded: overrides.loaded,
                unloaded: overrides.unloaded
            )
        )
    }
}

/// The plugin folders control clients loaded and unloaded by hand, by absolute path, which the daemon's plugins
/// folder alone does not say.
///
/// ```swift
/// var overrides = PluginOverrides()
/// overrides.noteLoaded("/opt/orders/Orders", pluginsFolder: "/usr/lib/navhost/plugins")        // loaded += it
/// overrides.noteUnloaded("/usr/lib/navhost/plugins/Settings", pluginsFolder: "/usr/lib/navhost/plugins")
/// ```
public struct PluginOverrides: Sendable, Equatable {
    /// The plugin folders outside the plugins folder that were loaded by hand, in the order they were.
    public private(set) var loaded: [String]
    /// The plugin folders of the plugins folder that were unloaded by hand: they stay unloaded until a `Load` of
    /// the same folder.
    public private(set) var unloaded: [String]

    /// Overrides of the folders `loaded` and `unloaded`.
    public init(loaded: [String] = [], unloaded: [String] = []) {
        self.loaded = loaded
        self.unloaded = unloaded
    }

    /// Notes that the plugin in `directory` was loaded by hand, the plugins folder being `pluginsFolder`.
    public mutating func noteLoaded(_ directory: String, pluginsFolder: String) {
        unloaded.removeAll { $0 == directory }
        if !Self.isPlugin(directory, of: pluginsFolder), !loaded.contains(directory) { loaded.append(directory) }
    }

    /// Notes that the plugin in `directory` was unloaded by hand, the plugins folder being `pluginsFolder`.
    public mutating func noteUnloaded(_ directory: String, pluginsFolder: String) {
        loaded.removeAll { $0 == directory }
        if Self.isPlugin(directory, of: pluginsFolder), !unloaded.contains(directory) { unloaded.append(directory) }
    }

    /// Whether `directory` (absolute, normalized) is a plugin folder of `pluginsFolder` (absolute): one the daemon
    /// loads at start. A hidden folder there (`.Products.incoming`) is not.
    public static func isPlugin(_ directory: String, of pluginsFolder: String) -> Bool {
        FileIO.parentDirectory(of: directory) == AbsolutePath.normalized(pluginsFolder)
            && !FileIO.fileName(of: directory).hasPrefix(".")
    }
}
