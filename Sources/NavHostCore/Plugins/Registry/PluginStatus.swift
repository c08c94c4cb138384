/// What the registry knows of one plugin folder: its manifest, and whether the plugin was loaded or quarantined.
public struct PluginStatus: Sendable, Hashable {
    /// Where the plugin stands.
    public enum State: Sendable, Hashable {
        /// The manifest reads; no code has been loaded (what ``PluginRegistry/scan(_:)`` reports).
        case found
        /// The plugin's module is in the catalog and serves its routes.
        case loaded
        /// The plugin was refused, for this reason.
        case quarantined(QuarantineReason)
    }

    // MARK: Public Properties

    /// The manifest's name, or the folder's name when the manifest cannot be read.
    public var name: String
    /// The plugin's folder.
    public var directory: String
    /// The manifest, when it reads.
    public var manifest: PluginManifest?
    /// Where the plugin stands.
    public var state: State
    /// The path the library was loaded from, once it was `dlopen`ed (which need not be in ``directory``).
    public var libraryPath: String?
    /// How long loading took, from the first check to the catalog; `nil` when nothing was attempted.
    public var loadDuration: Duration?
    /// Why the last reload of this loaded plugin was refused; `nil` when none was refused since it loaded. The
    /// version that loaded keeps serving.
    public var lastReloadFailure: QuarantineReason?

    /// The plugin's version, when the manifest reads.
    public var version: SemanticVersion? { manifest?.version }

    /// The route IDs the manifest lists.
    public var routes: [String] { manifest?.routeIDs ?? [] }

    /// Whether the plugin serves its routes.
    public var isLoaded: Bool { state == .loaded }

    /// Why the plugin was refused, when it was.
    public var quarantineReason: QuarantineReason? {
        if case .quarantined(let reason) = state { return reason }
        return nil
    }

    // MARK: Initialization

    /// Creates a status from its parts.
    public init(
        name: String,
        directory: String,
        manifest: PluginManifest?,
        state: State,
        libraryPath: String? = nil,
        loadDuration: Duration? = nil
    ) {
        self.name = name
        self.directory = directory
        self.manifest = manifest
        self.state = state
        self.libraryPath = libraryPath
        self.loadDuration = loadDuration
    }
}

// MARK: - CustomStringConvertible

extension PluginStatus: CustomStringConvertible {
    public var description: String {
        let version = version.map { " \($0)" } ?? ""
        switch state {
        case .found: return "\(name)\(version): found in \(directory)"
        case .loaded: return "\(name)\(version): loaded from \(libraryPath ?? directory), routes \(routes)"
        case .quarantined(let reason): return "\(name)\(version): quarantined, \(reason)"
        }
    }
}
