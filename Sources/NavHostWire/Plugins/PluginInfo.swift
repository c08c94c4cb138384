/// One plugin as the daemon knows it, as `io.navhost.Plugins.List` lists it and `Load` and `Reload` return it.
public struct PluginInfo: Sendable, Hashable, Codable {
    /// Whether a plugin serves its routes. New states may be added: compare with the constants, and show
    /// ``rawValue`` for one you do not know.
    public struct State: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The state's wire name.
        public var rawValue: String

        /// A state by its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The plugin is loaded and its routes are served.
        public static let loaded = State(rawValue: "loaded")
        /// The plugin was refused; ``PluginInfo/quarantine`` says why.
        public static let quarantined = State(rawValue: "quarantined")
        /// The plugin served until it was unloaded or its folder went away; its routes are gone.
        public static let removed = State(rawValue: "removed")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// Why a plugin was refused.
    public struct Quarantine: Sendable, Hashable, Codable {
        /// The reason's code, for scripts.
        public var code: String
        /// The reason, for a person.
        public var message: String

        /// Creates a reason, as a test double would.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The screens of one session that a reload could not bring back as they were.
    ///
    /// With the daemon stopped and the build before back in place, moving ``keptAside`` to the session's file brings
    /// them back as they were (docs/durability.md).
    public struct LostScreens: Sendable, Hashable, Codable {
        /// The session's name.
        public var session: String
        /// The screens still on the stack that started fresh: their saved state did not decode with the new build.
        public var startedFresh: [String]
        /// The screens taken off the stack, bottom first: the new build cannot show the first; the others, above it,
        /// went with it, whatever plugin showed them.
        public var removed: [String]
        /// The file that holds the session's record from before the reload; `nil` when none was kept.
        public var keptAside: String?

        /// Creates a report, as a test double would.
        public init(session: String, startedFresh: [String], removed: [String], keptAside: String? = nil) {
            self.session = session
            self.startedFresh = startedFresh
            self.removed = removed
            self.keptAside = keptAside
        }
    }

    /// Why a loaded plugin whose folder went away keeps serving.
    public struct RemovalRefused: Sendable, Hashable, Codable {
        /// The loaded plugins that list it as a hard dependency.
        public var neededBy: [String]
        /// The sessions whose configured root route it serves.
        public var rootOf: [String]
        /// Who needs it, for a person: `needed by Home`.
        public var message: String

        /// Creates a refusal, as a test double would.
        public init(neededBy: [String], rootOf: [String] = [], message: String) {
            self.neededBy = neededBy
            self.rootOf = rootOf
            self.message = message
        }
    }

    /// The plugin's name, like `Products`.
    public var name: String
    /// Its version, like `1.0.0`.
    public var version: String
    /// Whether it serves its routes.
    public var state: State
    /// Where its library was found.
    public var path: String
    /// The SDK version it was built against, when its manifest says.
    public var sdkVersion: String?
    /// The routes it offers (or would offer, when quarantined).
    public var routes: [String]
    /// Why it was refused; `nil` for a loaded plugin.
    public var quarantine: Quarantine?
    /// Why the build last tried from this loaded plugin's folder was refused, if it was (a new build's reload, or the
    /// serving build's folder found no longer whole): the version shown keeps serving.
    public var lastReloadFailure: Quarantine?
    /// Set while its folder is gone but loaded plugins (or a session's root) need it: it keeps serving.
    public var removalRefused: RemovalRefused?
    /// `true` on a removed plugin a control client unloaded: it stays removed, whatever its folder (`path`) holds,
    /// until a `Load` of that folder; `nil` otherwise.
    public var unloadedByHand: Bool?
    /// The plugin's folder (its manifest and resources), where `path` may be a private copy of its library; `nil`
    /// from a daemon that does not say.
    public var folder: String?
    /// `true` on a plugin a control client loaded from a folder outside the plugins folder: it is loaded from there
    /// at every start until an `Unload`; `nil` otherwise.
    public var loadedByHand: Bool?
    /// The SHA-256 of its library as its manifest records it: which build it is. A reload that serves the same
    /// `sha256` as before runs the same code (its folder's library did not change). `nil` from a daemon that does not
    /// say, or for a folder whose manifest does not read.
    public var sha256: String?
    /// The SHA-256 of the library of the build ``lastReloadFailure`` refused, as its manifest recorded it (``sha256``
    /// itself when the serving build's folder failed the check): a client that installed a build tells its refusal
    /// from an older one's. `nil` when none was refused, or from a daemon that does not say.
    public var lastRefusedBuild: String?
    /// When the daemon last tried the plugin's folder (loaded it, refused it, or refused a new build of it), in
    /// milliseconds since the Unix epoch; `nil` from a daemon that does not say.
    public var triedAt: Int64?

    /// What the reload that made this build serve cost the sessions, per session that lost screens; `nil` when it
    /// lost none, for a build that did not replace one, and from a daemon that does not say.
    public var lostAtReload: [LostScreens]?

    /// When this loaded build began to serve (its load, or the reload that made it serve), in milliseconds since the
    /// Unix epoch: a client that installed a build tells whether the install made it serve; `nil` for a plugin not
    /// loaded, and from a daemon that does not say.
    public var servingSince: Int64?

    /// The version the reload that made this loaded build serve replaced; `nil` for a build that loaded without
    /// replacing one, and from a daemon that does not say.
    public var replacedVersion: String?

    /// Creates a plugin description, as a test double would.
    public init(
        name: String,
        version: String,
        state: State,
        path: String,
        sdkVersion: String? = nil,
        routes: [String],
        quarantine: Quarantine? = nil,
        lastReloadFailure: Quarantine? = nil,
        removalRefused: RemovalRefused? = nil,
        unloadedByHand: Bool? = nil,
        folder: String? = nil,
        loadedByHand: Bool? = nil
    ) {
        self.name = name
        self.version = version
        self.state = state
        self.path = path
        self.sdkVersion = sdkVersion
        self.routes = routes
        self.quarantine = quarantine
        self.lastReloadFailure = lastReloadFailure
        self.removalRefused = removalRefused
        self.unloadedByHand = unloadedByHand
        self.folder = folder
        self.loadedByHand = loadedByHand
    }
}
