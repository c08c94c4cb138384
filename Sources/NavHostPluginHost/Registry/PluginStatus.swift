import Glibc
public import NavHostCore
import NavHostStorage

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
        /// The plugin served until it was unloaded or its folder went away; its routes are gone. Loading it again
        /// replaces this status.
        case removed
    }

    /// Why a loaded plugin whose removal was asked for (its folder went away) keeps serving.
    public struct RemovalRefusal: Sendable, Hashable, CustomStringConvertible {
        /// The loaded plugins that list it as a hard dependency.
        public var neededBy: [String]
        /// The sessions whose configured root route it serves.
        public var rootOf: [String]

        /// Says who needs the plugin.
        public init(neededBy: [String] = [], rootOf: [String] = []) {
            self.neededBy = neededBy
            self.rootOf = rootOf
        }

        /// Like `needed by Home` or `the root of session main`.
        public var description: String {
            var parts: [String] = []
            if !neededBy.isEmpty { parts.append("needed by \(neededBy.joined(separator: ", "))") }
            if !rootOf.isEmpty {
                let sessions = rootOf.count == 1 ? "session" : "sessions"
                parts.append("the root of \(sessions) \(rootOf.joined(separator: ", "))")
            }
            return parts.joined(separator: "; ")
        }
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
    /// Why the build last tried from this loaded plugin's folder was refused (a new build's reload, or the serving
    /// build's folder found no longer whole); `nil` when none was since it loaded. The version that loaded keeps
    /// serving.
    public var lastReloadFailure: QuarantineReason?
    /// The SHA-256 of the library of the build ``lastReloadFailure`` refused, as its manifest recorded it; `nil` when
    /// its manifest did not read.
    public var lastRefusedBuild: String?
    /// When the daemon last tried this plugin's folder — loaded it, refused it, or refused a new build of it — in
    /// milliseconds since the Unix epoch: a client that installed a build tells an answer about it from an older one.
    public var triedAt: Int64 = PluginStatus.now()
    /// Set while this loaded plugin's folder is gone but others need it, so it keeps serving; cleared when its
    /// folder comes back or what needed it goes (then it is removed).
    public var removalRefused: RemovalRefusal?
    /// What the reload that made this build serve cost the sessions: per session, the screens it could not bring back
    /// as they were (``LostScreens``). Empty when it lost none, and for a build that loaded without replacing one.
    public var lostAtReload: [LostScreens] = []
    /// When this loaded build began to serve (its load, or the reload that made it serve), in milliseconds since the
    /// Unix epoch; `nil` for a plugin that is not loaded.
    public var servingSince: Int64?
    /// The version the reload that made this build serve replaced; `nil` for a build that loaded without replacing
    /// one.
    public var replacedVersion: SemanticVersion?

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

    /// The wall clock, in milliseconds since the Unix epoch.
    static func now() -> Int64 { timespec.wallClockNow().milliseconds }
}

// MARK: - CustomStringConvertible

extension PluginStatus: CustomStringConvertible {
    public var description: String {
        let version = version.map { " \($0)" } ?? ""
        switch state {
        case .found: return "\(name)\(version): found in \(directory)"
        case .loaded:
            let refusal = removalRefused.map { ", removal refused: \($0)" } ?? ""
            return "\(name)\(version): loaded from \(libraryPath ?? directory), routes \(routes)\(refusal)"
        case .quarantined(let reason): return "\(name)\(version): quarantined, \(reason)"
        case .removed: return "\(name)\(version): removed from \(directory)"
        }
    }
}
