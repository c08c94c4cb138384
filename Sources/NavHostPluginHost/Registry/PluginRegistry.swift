public import Logging
public import NavHostCore
public import NavHostKit
import NavHostStorage

/// Finds feature plugins in a folder, loads them into a ``FeatureCatalog``, and keeps the outcome of each for the
/// operator.
///
/// ```swift
/// let registry = PluginRegistry(catalog: catalog, stateDirectory: "/var/lib/navhost", logger: logger)
/// registry.loadAll(from: "/usr/lib/navhost/plugins")
/// for status in registry.statuses { print(status) }   // "Products 1.0.0: loaded from …", "Foo: quarantined, …"
/// ```
///
/// A plugin is a folder holding a `manifest.json`, the library it names, and its resources (see
/// ``PluginManifest``). ``scan(_:)`` reads manifests only. ``loadAll(from:)`` loads every plugin after the ones it
/// depends on, and checks each in this order, stopping at the first failure, which quarantines the plugin with a
/// ``QuarantineReason``:
///
/// 1. the manifest reads and is valid (`fileMissing`, `badManifest`), and no other plugin has its name
///    (`duplicateName`); plugins that depend on each other in a cycle are refused (`dependencyCycle`);
/// 2. the library file is there (`fileMissing`) and its SHA-256 is the manifest's (`checksumMismatch`), and every
///    resource the manifest lists is there (`fileMissing`);
/// 3. it is an ELF shared object for this machine (`notASharedObject`), checked before `dlopen` sees it;
/// 4. it was built against a NavHostKit this daemon serves: same major version, minor no newer (`abiMismatch`);
/// 5. its hard dependencies are loaded (`dependencyMissing`), in versions the manifest accepts
///    (`dependencyVersionMismatch`), and none of its routes is taken (`routeConflict`); optional dependencies are
///    never required (see ``OptionalFeatures``);
/// 6. `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)` (`libraryLoadFailed`), the entry symbol
///    (`missingEntrySymbol`), the module's name and routes against the manifest (`manifestMismatch`);
/// 7. the catalog registers the module and builds its composition root (`routeConflict`, `initialisationFailed`).
///
/// With a ``PluginFaultGuard``, a build that crashed or stalled the daemon on an earlier run is refused before
/// `dlopen` (`crashed`, `stalled`).
///
/// One bad plugin never stops the others: nothing here throws. Each outcome is logged (metadata `navhost.plugin`)
/// and kept in ``statuses``.
///
/// Each loaded plugin gets its own ``HostServices``: the registry's logger with `navhost.plugin` set, the clock, a
/// ``FileKeyValueStore`` at `<state-dir>/store/<Name>.json`, and its folder as `resourceDirectory`.
///
/// - Important: Loaded code is never unloaded (see ``PluginLibrary``). `dlopen` of a path already loaded returns
///   the image loaded first even when the file changed, so a new build must be loaded from a fresh path: the
///   library path is a parameter of ``load(pluginAt:libraryPath:)`` for that reason, and nothing here assumes that
///   one path means one plugin.
@MainActor
public final class PluginRegistry {
    /// Makes the key-value store a feature gets, from the feature's name.
    public typealias StoreFactory = @MainActor (_ feature: String) -> any KeyValueStore

    // MARK: Private Properties

    let logger: Logger
    let clock: any Clock<Duration>
    let makeStore: StoreFactory
    /// Each feature's store, made at its first load and lent again to every later build: one writer per file, so a
    /// write of an old build's intent still running after a reload cannot overwrite, from its own copy of the
    /// values, what the new build wrote.
    var stores: [String: any KeyValueStore] = [:]
    let faultGuard: PluginFaultGuard?

    // MARK: Public Properties

    /// The catalog loaded plugins join.
    public let catalog: FeatureCatalog
    /// The daemon's state folder; stores live in its `store` subfolder.
    public let stateDirectory: String
    /// The NavHostKit version plugins are checked against: the daemon's own unless a test says otherwise.
    public let sdkVersion: NavHostKitVersion
    /// Every plugin the registry has tried, loaded or quarantined, in the order it decided on them.
    public internal(set) var statuses: [PluginStatus] = []
    /// Whether a removed plugin stays listed once a plugin of its name loads from another folder; by default none
    /// does. ``PluginControl`` keeps the folders unloaded by hand, which stay out until a `Load` of them.
    var keepsRemovedRow: (@MainActor (PluginStatus) -> Bool)?

    /// The plugins that serve their routes.
    public var loadedPlugins: [PluginStatus] { statuses.filter(\.isLoaded) }

    /// The plugins that were refused.
    public var quarantinedPlugins: [PluginStatus] { statuses.filter { $0.quarantineReason != nil } }

    /// Each loaded feature's view of its optional dependencies, lent in its `HostServices` and kept across reloads.
    var optionalFeatures: [String: OptionalFeatures] = [:]
    /// Each loaded plugin's folder as the daemon's last try of it (a load, a reload, a check) found it, by folder:
    /// ``PluginControl`` checks a serving folder again only when its stamps differ from these.
    var foldersAsTried: [String: PluginFolderStamps] = [:]

    // MARK: Initialization

    /// Creates a registry that loads plugins into `catalog`.
    ///
    /// - Parameters:
    ///   - catalog: The catalog plugins join.
    ///   - stateDirectory: The daemon's state folder; each feature's store is `<stateDirectory>/store/<Name>.json`.
    ///   - clock: The clock each feature's `HostServices` holds; by default ``SessionClock``, which a replay controls.
    ///   - sdkVersion: The NavHostKit version plugins must be compatible with.
    ///   - logger: Where outcomes are logged; each feature's logger derives from it.
    ///   - makeStore: Makes a feature's store, once: later builds of the feature get the same one; by default a
    ///     ``FileKeyValueStore`` in the state folder.
    ///   - faultGuard: Names the plugin that crashes or stalls the daemon, and keeps it quarantined afterwards.
    public init(
        catalog: FeatureCatalog,
        stateDirectory: String,
        clock: any Clock<Duration> = SessionClock(),
        sdkVersion: NavHostKitVersion = .current,
        logger: Logger,
        makeStore: StoreFactory? = nil,
        faultGuard: PluginFaultGuard? = nil
    ) {
        self.catalog = catalog
        self.faultGuard = faultGuard
        self.stateDirectory = stateDirectory
        self.clock = clock
        self.sdkVersion = sdkVersion
        self.logger = logger
        self.makeStore =
            makeStore ?? { feature in
                var storeLogger = logger
                storeLogger[metadataKey: "navhost.plugin"] = .string(feature)
                return FileKeyValueStore(directory: "\(stateDirectory)/store", feature: feature, logger: storeLogger)
            }
    }

    // MARK: Public Functions

    /// Lists the plugins in `directory` from their manifests alone: no code is loaded and nothing is recorded.
    ///
    /// - Returns: One status per plugin folder, by folder name: `.found`, or `.quarantined` with `fileMissing` or
    ///   `badManifest` when the manifest cannot be used. Empty when `directory` cannot be read.
    public func scan(_ directory: String) -> [PluginStatus] {
        guard let candidates = readCandidates(in: directory) else { return [] }
        return candidates.map { candidate in
            switch candidate.manifest {
            case .success(let manifest):
                PluginStatus(name: manifest.name, directory: candidate.directory, manifest: manifest, state: .found)
            case .failure(let reason):
                PluginStatus(
                    name: candidate.folderName,
                    directory: candidate.directory,
                    manifest: nil,
                    state: .quarantined(reason)
                )
            }
        }
    }

    /// Loads every plugin in `directory`, dependencies first, and records the outcome of each.
    ///
    /// A plugin already loaded from the same folder by an earlier call is left as it is. Plugins loaded earlier
    /// from elsewhere count as dependencies.
    ///
    /// - Returns: The status of each plugin of `directory`, in the order the registry decided on them.
    ///
    /// - Parameters:
    ///   - folders: When given, only the plugin folders of `directory` with these names are considered.
    ///   - excluded: The plugin folders of `directory`, by name, left alone.
    @discardableResult
    public func loadAll(
        from directory: String,
        only folders: Set<String>? = nil,
        excluding excluded: Set<String> = []
    ) -> [PluginStatus] {
        guard var candidates = readCandidates(in: directory) else { return [] }
        if let folders { candidates.removeAll { !folders.contains($0.folderName) } }
        candidates.removeAll { excluded.contains($0.folderName) }
        var outcomes: [PluginStatus] = []
        var ready: [String: (directory: String, manifest: PluginManifest)] = [:]
        for candidate in candidates {
            switch candidate.manifest {
            case .failure(let reason):
                outcomes.append(quarantine(candidate.folderName, in: candidate.directory, manifest: nil, reason))
            case .success(let manifest):
                if let loaded = status(named: manifest.name), loaded.isLoaded, loaded.directory == candidate.directory {
                    outcomes.append(loaded)
                } else if let first = ready[manifest.name] {
                    let reason = QuarantineReason(
                        .duplicateName,
                        "the plugin \(manifest.name) is already in \(first.directory)"
                    )
                    outcomes.append(quarantine(manifest.name, in: candidate.directory, manifest: manifest, reason))
                } else {
                    ready[manifest.name] = (candidate.directory, manifest)
                }
            }
        }
        let graph = DependencyGraph(dependencies: ready.mapValues { $0.manifest.hardDependencies.map(\.name) })
        for cycle in graph.cycles {
            for name in cycle {
                let reason = QuarantineReason(
                    .dependencyCycle,
                    "\(cycle.joined(separator: ", ")) depend on each other, so none of them can load first"
                )
                outcomes.append(quarantine(name, in: ready[name]!.directory, manifest: ready[name]!.manifest, reason))
            }
        }
        for name in loadingOrder(of: ready.mapValues(\.manifest), hardOrder: graph.order) {
            outcomes.append(load(ready[name]!.manifest, from: ready[name]!.directory, libraryPath: nil))
        }
        return outcomes
    }

    /// Loads the one plugin in the folder `directory`; the plugins it depends on must be loaded already.
    ///
    /// - Parameters:
    ///   - directory: The plugin's folder, holding its manifest and resources.
    ///   - libraryPath: The file to `dlopen`; by default the manifest's `library` in `directory`. A reload passes a
    ///     fresh copy here, because `dlopen` of a path already loaded returns the old image.
    /// - Returns: The plugin's status, also recorded in ``statuses``.
    @discardableResult
    public func load(pluginAt directory: String, libraryPath: String? = nil) -> PluginStatus {
        switch PluginDirectory.readManifest(in: directory) {
        case .success(let manifest):
            return load(manifest, from: directory, libraryPath: libraryPath)
        case .failure(let reason):
            return quarantine(FileIO.fileName(of: directory), in: directory, manifest: nil, reason)
        }
    }

    /// Records the plugin in `directory` as `removed`, as ``PluginControl`` left it before a restart, without loading
    /// anything: named by its manifest, or by its folder when the manifest does not read.
    func recordRemoved(pluginAt directory: String) {
        let manifest = try? PluginDirectory.readManifest(in: directory).get()
        let name = manifest?.name ?? FileIO.fileName(of: directory)
        record(PluginStatus(name: name, directory: directory, manifest: manifest, state: .removed))
    }

    /// Forgets the failed attempts at loading a plugin from `directory` (its folder went away).
    ///
    /// - Returns: The statuses forgotten.
    @discardableResult
    public func forgetFailures(in directory: String) -> [PluginStatus] {
        let failures = statuses.filter { $0.directory == directory && $0.quarantineReason != nil }
        statuses.removeAll { $0.directory == directory && $0.quarantineReason != nil }
        return failures
    }

    /// Forgets the row of a plugin removed from `directory`; a row of another state stays.
    func forgetRemoved(in directory: String) {
        statuses.removeAll { $0.directory == directory && $0.state == .removed }
    }

    /// Deletes the private copies of libraries in `<state-dir>/plugin-images` that an earlier run of the daemon
    /// loaded. Call it once, before the first load: the copies this process maps must stay.
    public func removeImagesOfEarlierRuns() {
        precondition(statuses.isEmpty, "plugin images are removed before any plugin is loaded")
        FileIO.removeFiles(in: imageDirectory)
    }

    /// The latest status of the plugin named `name`, preferring a loaded one.
    public func status(named name: String) -> PluginStatus? {
        statuses.first { $0.name == name && $0.isLoaded } ?? statuses.last { $0.name == name }
    }
}

// MARK: - Private Functions

extension PluginRegistry {
    fileprivate func readCandidates(in directory: String) -> [PluginDirectory.Candidate]? {
        do {
            return try PluginDirectory.candidates(in: directory)
        } catch {
            logger.warning(
                "Cannot read the plugins folder",
                metadata: ["navhost.plugins.directory": "\(directory)", "error": "\(error)"]
            )
            return nil
        }
    }

    /// Records `status`, replacing an earlier failed attempt at the same plugin in the same folder. A loaded
    /// plugin's status is never replaced: its code stays loaded whatever later attempts say. A plugin that loads
    /// replaces the record of its removal, wherever it was removed from.
    func record(_ status: PluginStatus) {
        if status.isLoaded {
            statuses.removeAll { row in
                row.name == status.name && row.state == .removed
                    && (row.directory == status.directory || keepsRemovedRow?(row) != true)
            }
        }
        let earlierFailure = statuses.firstIndex { earlier in
            earlier.name == status.name && earlier.directory == status.directory && !earlier.isLoaded
        }
        if let earlierFailure {
            statuses[earlierFailure] = status
        } else {
            statuses.append(status)
        }
    }

    /// Records and logs that the plugin `name` in `directory` is quarantined for `reason`.
    func quarantine(
        _ name: String,
        in directory: String,
        manifest: PluginManifest?,
        _ reason: QuarantineReason,
        libraryPath: String? = nil,
        duration: Duration? = nil
    ) -> PluginStatus {
        let status = PluginStatus(
            name: name,
            directory: directory,
            manifest: manifest,
            state: .quarantined(reason),
            libraryPath: libraryPath,
            loadDuration: duration
        )
        record(status)
        logger.warning(
            "Quarantined a plugin",
            metadata: [
                "navhost.plugin": "\(name)",
                "navhost.plugin.directory": "\(directory)",
                "navhost.plugin.reason": "\(reason.code)",
                "error": "\(reason.message)",
            ]
        )
        return status
    }
}
