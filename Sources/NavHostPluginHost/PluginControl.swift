import Logging
public import NavHostCore
import NavHostKit
public import NavHostStorage
import NavHostWire

/// Loads, reloads and unloads plugins while sessions run, keeping every session's stack in step with the catalog,
/// and tells watchers what changed.
///
/// ```swift
/// let control = PluginControl(registry: plugins, sessions: sessions)
/// let replacement = try control.reload("Products")   // every products.* screen rebuilt in place
/// try await control.unload("Products")               // every products.* screen, and what is above it, popped
/// await control.follow("/usr/lib/navhost/plugins", changes: monitor.changes)   // the same, as files change
/// ```
///
/// - A reload swaps the catalog entry, then each session rebuilds the screens of the old version's routes in place
///   (``NavigationSession/rebuildScreens(showing:)``): one `replaced` event per session that showed one. The screens
///   it could not bring back as they were are kept in the new build's status (``PluginStatus/lostAtReload``) and
///   named in the `reloaded` event.
/// - An unload removes the routes, then each session pops the plugin's lowest screen and everything above it
///   (``NavigationSession/removeScreens(showing:)``): one event per session. The features that list it as an
///   optional dependency are told it is gone. An unload that would take away a session's configured root route, or
///   a plugin that loaded plugins list as a hard dependency, is refused, so a session always has a root to restart
///   at and no feature loses what it cannot work without. A plugin whose folder went away but which cannot go is
///   kept serving with ``PluginStatus/removalRefused`` set, until its folder comes back or what needs it goes.
/// - Each outcome, success or refusal, is one ``PluginEvent`` for the ``watch()``ers.
/// - With a ``PluginOverridesFile``, what `Load` and `Unload` change is on disk before they return, and
///   ``loadAtStart(from:)`` puts it back after a restart: a plugin loaded by hand from another folder loads again, one
///   unloaded by hand stays unloaded (the folder watcher and ``rescan(_:)`` leave its folder alone) until a `Load`
///   of its folder. `Load` and `Unload` run one at a time (``PluginControl+Overrides.swift``).
@MainActor
public final class PluginControl {
    // MARK: Public Properties

    /// The plugins.
    public let registry: PluginRegistry
    /// The sessions kept in step.
    public let sessions: SessionRegistry
    /// How many undelivered events a plugin watcher holds before it coalesces them into a fresh list.
    public let watcherLimit: Int

    /// How many plugin watchers are attached.
    public var watcherCount: Int { watchers.count }
    /// Called on the main actor after a plugin has loaded, or a new build has replaced one, once the change that did
    /// it is done: the daemon opens the sessions whose root route was missing.
    public var onPluginServing: (@MainActor () -> Void)?

    /// On the main actor, wherever the last reference goes (the `Plugins` interface's closures hold the control, and
    /// run off it): the session registry it holds must be freed there (the rule in Backlink.swift).
    isolated deinit {}

    // MARK: Private Properties

    private var watchers: [ObjectIdentifier: PluginWatcher] = [:]
    var logger: Logger { registry.logger }
    /// The last build refused from each plugin folder, so that the same build is not tried (and reported) again each
    /// time something else in its folder changes.
    var refusedBuilds: [String: RefusedBuild] = [:]
    /// Where ``overrides`` is kept; `nil` when what is loaded and unloaded by hand does not outlive the process.
    let overridesFile: PluginOverridesFile?
    /// The plugins loaded and unloaded by hand, as the file holds them (or is about to).
    var overrides = PluginOverrides()
    /// Why the overrides file could not be read at start: `Load` and `Unload` are refused until a restart reads it.
    var overridesProblem: String?
    /// Whether the overrides file may hold a refused change that could not be written over: the next `Load` or
    /// `Unload` writes the file even when it changes nothing of ``overrides`` (the one a client makes to undo it).
    var overridesOnDiskDiffer = false
    /// The plugins folder ``loadAtStart(from:)`` loaded.
    var pluginsFolder: String?
    /// The folders outside the plugins folder whose plugin an `Unload` took out in this run, and no `Load` brought
    /// back, oldest first: listed as unloaded by hand until the daemon stops, after which nothing loads them (the
    /// overrides no longer list them) and nothing lists them. At most ``outsideUnloadsListed``: past that, the oldest
    /// one's row goes, so that loading and unloading folders does not grow the list without end.
    var unloadedFromOutside: [String] = []
    /// How many folders ``unloadedFromOutside`` keeps listed.
    static let outsideUnloadsListed = 32
    /// The `Load` and `Unload` calls, which take turns, first come first served: each writes the overrides and changes
    /// the registry as one step, which no other such call sees half done.
    let loadsAndUnloads = Turns()
    /// Whether a call of ``onPluginServing`` is scheduled: the plugins a rescan loads together make one.
    private var isServingHookScheduled = false
    /// Called once a `Load` or `Unload` has written the overrides and before it makes its change, at the point where
    /// the folder watcher or SIGHUP may have acted while the write waited for the disk: tests make such a change here.
    var whileWriting: (@MainActor () -> Void)?
    /// Called as ``commitSessions(after:)`` begins, at the point where the folder watcher may act while the sessions
    /// are written: tests make such a change here.
    var whileCommitting: (@MainActor () -> Void)?

    // MARK: Initialization

    /// Creates a control over `registry` and `sessions`, which must share one catalog. With `overrides`, what
    /// ``load(pluginAt:)`` and ``unload(_:)`` change is durable before they return.
    public init(
        registry: PluginRegistry,
        sessions: SessionRegistry,
        overrides: PluginOverridesFile? = nil,
        watcherLimit: Int = 64
    ) {
        self.registry = registry
        self.sessions = sessions
        self.overridesFile = overrides
        self.watcherLimit = watcherLimit
        registry.keepsRemovedRow = { [weak self] row in self?.isUnloadedByHand(row) == true }
        // A plugin kept because it is the root of a session goes once that session is closed.
        sessions.onSessionClosed = { [weak self] _ in self?.retryRefusedChanges() }
    }

    // MARK: Changing the plugins

    /// Loads the plugin in the folder `directory` (see ``PluginRegistry/load(pluginAt:libraryPath:)``), and returns
    /// once that a restart loads it too is on disk: a folder unloaded by hand is no longer, and one outside the plugins
    /// folder is loaded at start from now on. A folder whose build serves already is done at once (a `Load` of it
    /// again); one that serves but holds another build now is refused, as a reload's to take.
    ///
    /// `directory` must be absolute; it is taken as written with `.`, `..` and repeated slashes resolved, and a
    /// folder of the plugins folder reached through a symbolic link is taken for the plugins folder's own.
    ///
    /// - Throws: ``PluginRegistry/ChangeError/refused(_:)`` with the reason it was quarantined (`fileMissing` for a
    ///   relative path), or `storageFailed` when the change cannot be written; then nothing was loaded.
    @discardableResult
    public func load(pluginAt directory: String) async throws(PluginRegistry.ChangeError) -> PluginStatus {
        let directory = try pluginFolder(directory)
        return try await loadsAndUnloads.take { () async throws(PluginRegistry.ChangeError) -> PluginStatus in
            // What the manifest alone refuses is refused before anything is written: refused after the write, the
            // change stayed on disk until it was taken back, and a kill -9 between made the restart load this folder
            // in place of one a Load acknowledged before, or undid an Unload acknowledged before (durability reviews
            // of sessions 60 and 61). A folder that is not there, or whose manifest does not read, is refused as the
            // registry words it; a manifest that appears meanwhile is loaded as any other, its Load written before.
            let manifest = PluginDirectory.readManifest(in: directory)
            if case .failure(let reason) = manifest {
                if FileIO.kind(of: directory) == .directory {
                    // Told to the plugins' watchers as a load that failed is (`loadNow`), named by its folder.
                    publish(.failed(FileIO.fileName(of: directory), folder: directory, reason: reason))
                }
                throw .refused(reason)
            }
            // Another plugin of the name loaded, a route another serves, the SDK, the dependencies.
            if case .success(let manifest) = manifest, registry.status(named: manifest.name)?.directory != directory {
                do throws(QuarantineReason) {
                    try registry.checkCompatibility(of: manifest, replacing: nil)
                } catch {
                    // Told to the plugins' watchers as a load that failed is (`loadNow`).
                    publish(.failed(manifest.name, version: manifest.version, folder: directory, reason: error))
                    throw .refused(error)
                }
            }
            return try await changeDurably(directory, noting: { $0.noteLoaded(directory, pluginsFolder: $1) }) {
                () throws(PluginRegistry.ChangeError) -> PluginStatus in
                if let serving = try servingBuild(in: directory) { return serving }
                let status = try loadNow(pluginAt: directory)
                // Only once it loaded: a refused Load leaves the folder unloaded by hand, as for the plugins folder's.
                unloadedFromOutside.removeAll { $0 == directory }
                return status
            }
        }
    }

    /// Replaces the plugin `name` with the build now in its folder, then rebuilds its screens in every session.
    ///
    /// - Returns: The replacement, whose status names the screens the sessions lost (``PluginStatus/lostAtReload``).
    ///
    /// - Throws: ``PluginRegistry/ChangeError/notLoaded(_:)`` when no loaded plugin has that name, or
    ///   ``PluginRegistry/ChangeError/refused(_:)`` when the new build fails a check, or no longer offers, or cannot
    ///   build, the root a session starts at (`inUse`, as an unload of the plugin would be); the old version then
    ///   keeps serving and no session changes.
    @discardableResult
    public func reload(_ name: String) throws(PluginRegistry.ChangeError) -> PluginRegistry.Replacement {
        var replacement: PluginRegistry.Replacement
        do {
            let roots = sessions.all.filter { session in
                registry.catalog.entry(named: name)?.screens.contains { $0.route == session.configuredRoot.id } == true
            }
            replacement = try registry.reload(
                name,
                refusalToDrop: { dropped in refusalToDrop(dropped) },
                refusalToServe: { coordinator in refusalToServe(roots, by: coordinator) }
            )
        } catch {
            if case .refused(let reason) = error {
                // The refused build's version, when its manifest reads.
                let folder = registry.status(named: name)?.directory
                let version = folder.flatMap { try? PluginDirectory.readManifest(in: $0).get().version }
                publish(.failed(name, version: version, folder: folder, reason: reason))
            }
            throw error
        }
        let lost = sessions.rebuildScreens(showing: replacement.oldRoutes)
        registry.recordLoss(of: name, lost)
        replacement.status.lostAtReload = lost
        publish(.reloaded(name, replacement))
        // The new build may no longer need a plugin whose removal was refused for it.
        removeFreedPlugins()
        return replacement
    }

    /// Unloads the plugin `name` and removes its screens, and those above them, from every session; returns once
    /// that a restart leaves it unloaded is on disk (a plugin of the plugins folder stays unloaded until a `Load` of
    /// its folder; one loaded by hand from elsewhere is no longer loaded at start).
    ///
    /// The features that list it as an optional dependency are told it is gone (``OptionalFeatures``). When that
    /// frees a plugin whose removal was refused earlier because `name` needed it, that plugin is removed too.
    ///
    /// - Throws: ``PluginRegistry/ChangeError/notLoaded(_:)``, or ``PluginRegistry/ChangeError/refused(_:)`` when a
    ///   loaded plugin lists it as a hard dependency or it serves a session's configured root route (`inUse`), or
    ///   the change cannot be written (`storageFailed`); then nothing changed.
    public func unload(_ name: String) async throws(PluginRegistry.ChangeError) {
        try await loadsAndUnloads.take { () async throws(PluginRegistry.ChangeError) in
            try await unloadListingNoSession(name)
        }
    }

    /// ``unload(_:)``, then the sessions it changed committed (``commitSessions(after:)``): what
    /// `io.navhost.Plugins.Unload` does before it answers. A copy of the plugin that came while the sessions were
    /// written (its folder renamed then: the folder watcher loads the copy, or a restart would) is unloaded the same
    /// way, and the sessions committed again, until none comes.
    ///
    /// All of it takes one turn of `Load` and `Unload`, so a `Load` of the name by another caller comes after it, and is
    /// not undone. Until session 62 the copy was loaded after the answer, and at every start (a review renamed the
    /// folder during 10 `Unload`s with 30 sessions to write: 8 left the plugin loaded).
    ///
    /// - Throws: What ``unload(_:)`` throws, and then nothing changed. Once the plugin is unloaded: a refusal to
    ///   unload a copy that came meanwhile (a session opened at its route while the sessions were written, or the
    ///   disk), which says the plugin itself is unloaded and the copy stays; or `duplicateName` when copies kept coming.
    public func unloadCommittingSessions(_ name: String) async throws(PluginRegistry.ChangeError) {
        try await loadsAndUnloads.take { () async throws(PluginRegistry.ChangeError) in
            try await unloadListingNoSession(name)
            await commitSessions(after: "\(name) was unloaded")
            for _ in 1...3 where hasCopy(of: name) {
                do throws(PluginRegistry.ChangeError) {
                    try await unloadListingNoSession(name)
                } catch .notLoaded {
                    // The copy went again before its turn: nothing to unload.
                    continue
                } catch .refused(var reason) {
                    reason.message =
                        "\(name) is unloaded, but a copy of it that came while the sessions were written stays: "
                        + reason.message
                    throw .refused(reason)
                }
                await commitSessions(after: "\(name) was unloaded")
            }
            guard !hasCopy(of: name) else {
                throw .refused(
                    QuarantineReason(
                        .duplicateName,
                        "\(name) is unloaded, but copies of it kept coming into the plugins folder while the sessions "
                            + "were written: unload it again once its folder stops changing"
                    )
                )
            }
        }
    }

    /// Whether a plugin named `name` is loaded, or a folder holds one that a restart or a retry would load: a copy
    /// ``unloadCommittingSessions(_:)`` unloads too.
    private func hasCopy(of name: String) -> Bool {
        registry.status(named: name)?.isLoaded == true || !strandedFolders(named: name).isEmpty
    }

    /// ``unloadInTurn(_:)`` with no session being opened meanwhile: one opened at the plugin's routes while the change
    /// is written would have the unload refused after the write (``SessionRegistry/whileNoSessionIsListed(_:)``).
    private func unloadListingNoSession(_ name: String) async throws(PluginRegistry.ChangeError) {
        try await sessions.whileNoSessionIsListed { () async throws(PluginRegistry.ChangeError) in
            try await unloadInTurn(name)
        }
    }

    /// ``unload(_:)``, once it has the turns.
    private func unloadInTurn(_ name: String) async throws(PluginRegistry.ChangeError) {
        // Folders that hold a plugin of this name but could not load (loaded by hand, their folder gone at start
        // or beside the plugins folder's plugin of the name; a copy in the plugins folder under another folder
        // name) go too: a restart, or the retry after this unload, would bring the name back.
        var stranded = strandedFolders(named: name)
        guard registry.status(named: name)?.isLoaded == true || stranded.isEmpty else {
            try await changeDurably(
                stranded.joined(separator: " "),
                noting: { overrides, folder in
                    for path in stranded { overrides.noteUnloaded(path, pluginsFolder: folder) }
                }
            ) { () throws(PluginRegistry.ChangeError) in
                for row in forgetStranded(stranded) {
                    publish(.removed(row.name, version: row.version, folder: row.directory))
                }
            }
            return
        }
        // A plugin that moved to another folder while the change was written (its folder renamed) is unloaded
        // from there, with that folder written down instead; one the folder watcher has not unloaded yet (it
        // waits for the folder to settle) has its new folder refused as a copy meanwhile, written down the same
        // way on the next attempt.
        for attempt in 1...3 {
            if attempt > 1 { stranded = strandedFolders(named: name) }
            let directory = try checkUnload(name)
            var moved = false
            do throws(PluginRegistry.ChangeError) {
                try await changeDurably(
                    directory,
                    noting: { overrides, folder in
                        overrides.noteUnloaded(directory, pluginsFolder: folder)
                        for path in stranded { overrides.noteUnloaded(path, pluginsFolder: folder) }
                    }
                ) { () throws(PluginRegistry.ChangeError) in
                    guard registry.status(named: name)?.directory == directory,
                        Set(strandedFolders(named: name)).isSubset(of: stranded)
                    else {
                        moved = true
                        throw .notLoaded(name)
                    }
                    // Checked again: what needs it may have come while the change was written.
                    try unload(name, because: "unloaded by a control client")
                    if !isOfThePluginsFolder(directory) { noteUnloadedFromOutside(directory) }
                    forgetStranded(stranded)
                    retryWaitingPlugins()
                }
                return
            } catch {
                guard moved, attempt < 3 else { throw error }
            }
        }
    }

    // MARK: Watching

    /// Starts a watcher: every plugin's status first, then one event per change.
    public func watch() -> PluginWatcher {
        let watcher = PluginWatcher(limit: watcherLimit, first: .snapshot(registry.statuses, coalesced: false)) {
            [weak self] watcher in
            let id = ObjectIdentifier(watcher)
            Task { @MainActor in self?.watchers[id] = nil }
        }
        watchers[ObjectIdentifier(watcher)] = watcher
        return watcher
    }

    /// Ends every watcher (the daemon is stopping).
    public func closeWatchers() {
        for watcher in watchers.values { watcher.finish(with: .stopping) }
        watchers.removeAll()
    }
}

// MARK: - Private Functions

extension PluginControl {
    /// The plugin that serves from `directory` when a `Load` names its folder again: done already, with nothing
    /// loaded, no event and nothing quarantined, when the folder holds that build whole (its manifest, the library and
    /// resources it lists: what a restart loads); refused when its manifest does not read, the folder lacks a file,
    /// or it holds another build (a `Reload` takes a new build, and says what it cost the sessions). `nil` when none
    /// serves from there. Before, the registry loaded the folder again and refused it as `duplicateName`, telling
    /// every plugin watch of a failure and logging a quarantine, for a plugin that went on serving.
    fileprivate func servingBuild(in directory: String) throws(PluginRegistry.ChangeError) -> PluginStatus? {
        guard let serving = registry.statuses.first(where: { $0.directory == directory && $0.isLoaded }) else {
            return nil
        }
        let manifest: PluginManifest
        switch PluginDirectory.readManifest(in: directory) {
        case .success(let read): manifest = read
        case .failure(let reason): throw .refused(reason)
        }
        // The same build as the folder watcher takes it (`synchronize`): the whole manifest, not its version alone.
        guard manifest == serving.manifest else {
            throw .refused(
                QuarantineReason(
                    .duplicateName,
                    "\(serving.name) \(serving.version.map { "\($0)" } ?? "") serves from \(directory) already, and "
                        + "the folder now holds another build: a reload takes it (navctl plugins reload \(serving.name))"
                )
            )
        }
        if let missing = PluginDirectory.incompleteness(of: manifest, in: directory) { throw .refused(missing) }
        return serving
    }

    /// Loads the plugin in `directory` now. A refused load changes nothing: the reply says why, and the list keeps
    /// no row of its own for it (a client could grow the list without end, or set a quarantined twin beside a loaded
    /// plugin); a folder quarantined before, which the folder watcher reports on, keeps its row, updated, and one
    /// listed as removed stays so.
    fileprivate func loadNow(pluginAt directory: String) throws(PluginRegistry.ChangeError) -> PluginStatus {
        let rowsBefore = registry.statuses.filter { $0.directory == directory }
        let status = registry.load(pluginAt: directory)
        publish(.outcome(of: status))
        guard let reason = status.quarantineReason else {
            retryWaitingPlugins()
            return status
        }
        if !rowsBefore.contains(where: { $0.quarantineReason != nil }) {
            registry.forgetFailures(in: directory)
            for row in rowsBefore where row.state == .removed { registry.record(row) }
        }
        throw .refused(reason)
    }

    func publish(_ event: PluginEvent) {
        for watcher in watchers.values { watcher.deliver(event) { registry.statuses } }
        if event.kind == .loaded || event.kind == .reloaded { scheduleServingHook() }
    }

    /// Calls ``onPluginServing`` once the work under way is done (a rescan, a `Load`), not in the middle of it.
    fileprivate func scheduleServingHook() {
        guard onPluginServing != nil, !isServingHookScheduled else { return }
        isServingHookScheduled = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            isServingHookScheduled = false
            onPluginServing?()
        }
    }

    func unload(_ name: String, because why: String) throws(PluginRegistry.ChangeError) {
        try checkUnload(name)
        let serving = registry.status(named: name)
        let removed = try registry.unload(name, because: why)
        for session in sessions.all { session.removeScreens(showing: removed) }
        publish(.removed(name, version: serving?.version, folder: serving?.directory))
        removeFreedPlugins()
    }

    /// Tries again the removals and the new builds refused earlier (SIGHUP, and after each `CloseSession`): a
    /// session that pinned a plugin, or started at a route its new build drops, may have closed, or a dependant's new
    /// build may no longer need it.
    public func retryRefusedChanges() {
        removeFreedPlugins()
        reloadBuildsFreed()
    }

    /// Reloads the new builds refused because a session started at a route they drop (`inUse`), still in their
    /// folders, once no session starts at one any more.
    fileprivate func reloadBuildsFreed() {
        for status in registry.loadedPlugins where status.lastReloadFailure?.code == .inUse {
            guard let manifest = try? PluginDirectory.readManifest(in: status.directory).get(),
                manifest.sha256 == status.lastRefusedBuild
            else { continue }
            guard refusalToDrop(registry.routes(servedBy: status).subtracting(manifest.routeIDs)) == nil else {
                continue
            }
            refusedBuilds[status.directory] = nil
            _ = try? reload(status.name)
        }
    }
}

extension PluginControl {
    /// The folders holding a plugin named `name` that is not loaded from them, and that a restart, a rescan or the
    /// unloading of the one serving would load: folders loaded by hand (in the overrides), and folders of the plugins
    /// folder not unloaded by hand (a copy under another folder name, refused as `duplicateName`).
    ///
    /// The plugins folder is read as it is on disk now, not as the registry last saw it: a copy the folder watcher
    /// has not taken yet (the serving folder renamed a moment ago, or waiting for the folder to settle) counts too.
    func strandedFolders(named name: String) -> [String] {
        let tried = registry.statuses.filter { status in
            guard status.name == name, status.quarantineReason != nil else { return false }
            if overrides.loaded.contains(status.directory) { return true }
            return isOfThePluginsFolder(status.directory) && !overrides.unloaded.contains(status.directory)
        }.map(\.directory)
        let untried = foldersOfThePluginsFolder(holding: name).filter { path in
            registry.status(named: name)?.directory != path && !tried.contains(path)
        }
        return tried + untried
    }

    /// The folders of the plugins folder, as they are on disk now and not unloaded by hand, whose manifest names
    /// `name`.
    fileprivate func foldersOfThePluginsFolder(holding name: String) -> [String] {
        guard let pluginsFolder else { return [] }
        let candidates = (try? PluginDirectory.candidates(in: Self.folderPath(pluginsFolder))) ?? []
        return candidates.filter { candidate in
            (try? candidate.manifest.get())?.name == name && !overrides.unloaded.contains(candidate.directory)
        }.map(\.directory)
    }

    /// Forgets the failed attempts at the stranded folders of an `Unload` (``strandedFolders(named:)``): a folder of
    /// the plugins folder is listed as `removed` then, unloaded by hand like the one that served.
    ///
    /// - Returns: The rows forgotten.
    @discardableResult
    func forgetStranded(_ folders: [String]) -> [PluginStatus] {
        var forgotten: [PluginStatus] = []
        for path in folders {
            forgotten += registry.forgetFailures(in: path)
            if isOfThePluginsFolder(path) { registry.recordRemoved(pluginAt: path) }
        }
        return forgotten
    }

    /// Lists `directory`, outside the plugins folder, as unloaded by hand, and drops the row of the oldest one so
    /// listed past ``outsideUnloadsListed``.
    func noteUnloadedFromOutside(_ directory: String) {
        unloadedFromOutside.removeAll { $0 == directory }
        unloadedFromOutside.append(directory)
        while unloadedFromOutside.count > Self.outsideUnloadsListed {
            registry.forgetRemoved(in: unloadedFromOutside.removeFirst())
        }
    }

    /// Throws what unloading the plugin `name` now would be refused for: it is not loaded, a session's configured
    /// root route is one of its routes, or a loaded plugin lists it as a hard dependency.
    ///
    /// - Returns: The plugin's folder.
    @discardableResult
    func checkUnload(_ name: String) throws(PluginRegistry.ChangeError) -> String {
        guard let routes = registry.catalog.entry(named: name)?.screens.map(\.route),
            let directory = registry.status(named: name)?.directory
        else { throw .notLoaded(name) }
        if let session = sessions.all.first(where: { routes.contains($0.configuredRoot.id) }) {
            throw .refused(
                QuarantineReason(
                    .inUse,
                    "session \(session.name) starts at \(session.configuredRoot.id), which \(name) serves; "
                        + howToFree(session)
                )
            )
        }
        // A session listed as opened whose opening is under way (it exists durably before it is open), or that a
        // restart would open: it starts there too.
        if let listed = sessions.opened.values.sorted(by: { $0.name < $1.name }).first(where: {
            routes.contains($0.root)
        }) {
            throw .refused(
                QuarantineReason(
                    .inUse,
                    "session \(listed.name) starts at \(listed.root), which \(name) serves; close it first "
                        + "(navctl session close \(listed.name))"
                )
            )
        }
        if let refusal = registry.dependentsRefusal(toUnload: name) { throw .refused(refusal) }
        return directory
    }

    /// Why a new build that no longer offers the routes `dropped` is refused: a session starts at one of them
    /// (`inUse`); `nil` when none does.
    private func refusalToDrop(_ dropped: Set<String>) -> QuarantineReason? {
        sessions.all.first { dropped.contains($0.configuredRoot.id) }.map { session in
            QuarantineReason(
                .inUse,
                "the new build has no route \(session.configuredRoot.id), where session \(session.name) starts: "
                    + "\(howToFree(session)); the daemon then takes the build by itself"
            )
        }
    }

    /// Why a new build whose composition root is `coordinator` is refused: it cannot build the root of one of
    /// `sessions` (`inUse`: its parameters no longer fit, say); `nil` when it builds every one.
    private func refusalToServe(_ sessions: [NavigationSession], by coordinator: any FeatureCoordinator)
        -> QuarantineReason?
    {
        for session in sessions {
            guard let failure = FeatureCatalog.failure(of: coordinator, building: session.configuredRoot) else {
                continue
            }
            return QuarantineReason(
                .inUse,
                "the new build cannot show \(session.configuredRoot.id), where session \(session.name) starts: "
                    + "\(failure); \(howToFree(session)); the daemon then takes the build by itself"
            )
        }
        return nil
    }

    /// What frees the route `session` starts at: a change to its declaration, or closing it.
    private func howToFree(_ session: NavigationSession) -> String {
        sessions.configuredNames.contains(session.name)
            ? "change its root where it is declared (the configuration or --session) first"
            : "close it first (navctl session close \(session.name))"
    }

    /// Removes the plugins whose removal was refused and whose folder is still gone, now that what needed them may
    /// have gone; one that is still needed keeps its refusal, updated to who needs it now.
    fileprivate func removeFreedPlugins() {
        for status in registry.loadedPlugins where status.removalRefused != nil {
            guard FileIO.kind(of: status.directory) != .directory else { continue }
            unloadVanished(status)
        }
    }

    /// Clears the last refused reload of the loaded plugin `name`.
    func clearReloadFailure(of name: String) {
        guard let index = registry.statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else { return }
        registry.statuses[index].lastReloadFailure = nil
        registry.statuses[index].lastRefusedBuild = nil
    }

    /// Sets or clears the removal refusal of the loaded plugin `name`.
    func setRemovalRefusal(_ refusal: PluginStatus.RemovalRefusal?, of name: String) {
        guard let index = registry.statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else { return }
        registry.statuses[index].removalRefused = refusal
    }
}

/// A build tried from a plugin folder and refused: its manifest, and the library the manifest names as the file
/// system had it then. The same manifest over another library is another build: a library refused for its checksum
/// while it was still being written (a slow copy the folder watcher tried once the folder settled) is tried again
/// once it is whole.
struct RefusedBuild: Equatable {
    var manifest: PluginManifest
    var library: FileIO.Stamp?

    init(_ manifest: PluginManifest, in folder: String) {
        self.manifest = manifest
        self.library = FileIO.stamp(of: "\(folder)/\(manifest.library)")
    }
}
