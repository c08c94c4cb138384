import Logging
import NavHostStorage
public import NavHostWire

// What control clients loaded and unloaded by hand, kept on disk before they are answered and put back at start.

extension PluginControl {
    // MARK: Loading at start

    /// Loads the plugins at start: every plugin of the plugins folder `directory` but those unloaded by hand (listed
    /// as `removed`), then those loaded by hand from elsewhere, in the order they were, and the plugins of both that
    /// waited for one of those, until no more load. Failures are logged and kept in the registry's statuses.
    ///
    /// A file of overrides that cannot be read is left alone: everything in `directory` loads, and `Load` and
    /// `Unload` are refused (`storageFailed`) until a restart can read it.
    public func loadAtStart(from directory: String) {
        let base = Self.folderPath(directory)
        pluginsFolder = base
        readOverrides()
        let unloadedHere = overrides.unloaded.filter { PluginOverrides.isPlugin($0, of: base) }
        registry.loadAll(from: base, excluding: Set(unloadedHere.map { FileIO.fileName(of: $0) }))
        for path in unloadedHere { registry.recordRemoved(pluginAt: path) }
        // Each round loads what the last one's plugins were waiting for: a plugin loaded by hand may need one of the
        // plugins folder that needs another loaded by hand.
        var pending = overrides.loaded
        var loadedAny = true
        while loadedAny, !pending.isEmpty {
            loadedAny = false
            for path in pending where !registry.loadedPlugins.contains(where: { $0.directory == path }) {
                loadedAny = registry.load(pluginAt: path).isLoaded || loadedAny
            }
            pending.removeAll { path in registry.loadedPlugins.contains { $0.directory == path } }
            if loadedAny { retryWaitingPlugins(in: base) }
        }
        for path in pending {
            logger.error(
                "A plugin loaded by hand before cannot be loaded again; Load it again once fixed, or Unload it",
                metadata: [
                    "navhost.plugin.directory": "\(path)",
                    "error":
                        "\(registry.statuses.last { $0.directory == path }?.quarantineReason.map { "\($0)" } ?? "")",
                ]
            )
        }
        var metadata: Logger.Metadata = [:]
        if !overrides.loaded.isEmpty {
            metadata["navhost.plugins.loaded-by-hand"] = "\(overrides.loaded.joined(separator: " "))"
        }
        if !unloadedHere.isEmpty {
            metadata["navhost.plugins.unloaded-by-hand"] = "\(unloadedHere.joined(separator: " "))"
        }
        guard !metadata.isEmpty else { return }
        logger.info("Kept what control clients loaded and unloaded by hand", metadata: metadata)
    }

    // MARK: Committing the sessions

    /// Commits every session after `change` (a plugin loaded, reloaded or unloaded), and returns once each is durable.
    ///
    /// A session that cannot be saved fails nothing: the plugin change is made and kept by then, and what the
    /// session shows is what a restart gives anyway — its saved stack is restored without the screens of a plugin
    /// that is not loaded, and with a reloaded plugin's screens built by the build in its folder. The failure is
    /// logged, one line per session, and the session's next change answers `StorageFailed` while its disk refuses.
    /// One that a client closes meanwhile is passed over (``SessionRegistry/commitAll()``).
    public func commitSessions(after change: String) async {
        whileCommitting?()
        for unsaved in await sessions.commitAll() {
            logger.error(
                "A plugin change is made and kept, but a session could not be saved after it",
                metadata: [
                    "navhost.plugin.change": "\(change)",
                    "navhost.session": "\(unsaved.session)",
                    "error": "\(unsaved.error)",
                ]
            )
        }
    }

    // MARK: Reporting

    /// Every plugin found, loaded, quarantined or removed, as `io.navhost.Plugins.List` reports it: a plugin
    /// unloaded or loaded by hand says so (``PluginInfo/unloadedByHand``, ``PluginInfo/loadedByHand``).
    public var reports: [PluginInfo] { reports(of: registry.statuses) }

    /// `statuses` as `io.navhost.Plugins` reports them (a plugin watcher's snapshot), each saying whether it was
    /// unloaded by hand.
    public func reports(of statuses: [PluginStatus]) -> [PluginInfo] { statuses.map(report) }

    /// The folder of the plugin named `name` when it was unloaded by hand and not loaded since: a `Load` of that folder
    /// brings it back. `nil` for any other name.
    public func folderUnloadedByHand(named name: String) -> String? {
        let rows = registry.statuses.filter { $0.name == name && isUnloadedByHand($0) }
        // The plugins folder's first: its Load brings the plugin back at every start too. Then the folder outside
        // it unloaded last.
        let lastOutside = rows.max { earlier, later in
            (unloadedFromOutside.firstIndex(of: earlier.directory) ?? -1)
                < (unloadedFromOutside.firstIndex(of: later.directory) ?? -1)
        }
        return (rows.first { overrides.unloaded.contains($0.directory) } ?? lastOutside)?.directory
    }

    /// Whether `status` is a plugin's removal that an `Unload` made and a `Load` of its folder has not undone: what
    /// `List` says as `unloadedByHand`, `PluginNotFound` as `unloadedFolder`, and the registry keeps listing beside a
    /// plugin of its name loaded from elsewhere (``PluginRegistry/keepsRemovedRow``). For a folder of the plugins
    /// folder the overrides say so, across restarts; for one outside it, ``unloadedFromOutside``, in this run.
    func isUnloadedByHand(_ status: PluginStatus) -> Bool {
        status.state == .removed
            && (overrides.unloaded.contains(status.directory) || unloadedFromOutside.contains(status.directory))
    }

    /// Whether `directory` is a plugin folder of the plugins folder, which the daemon loads at start.
    func isOfThePluginsFolder(_ directory: String) -> Bool {
        pluginsFolder.map { PluginOverrides.isPlugin(directory, of: $0) } ?? false
    }

    /// `status` as `io.navhost.Plugins` reports it, saying whether it was unloaded or loaded by hand.
    public func report(_ status: PluginStatus) -> PluginInfo {
        var info = status.info
        if isUnloadedByHand(status) { info.unloadedByHand = true }
        if status.isLoaded, overrides.loaded.contains(status.directory) { info.loadedByHand = true }
        return info
    }

    // MARK: Changing durably

    /// Writes the overrides as `note` changes them for `directory`, then makes the change with `change`, and keeps
    /// them in force once it is made. The overrides in force do not change before: the folder watcher and SIGHUP,
    /// which may act while the write waits for the disk, go by what is made. A refused change writes back the
    /// overrides in force.
    ///
    /// - Throws: What `change` throws; `storageFailed` when the overrides cannot be written (nothing was changed, and
    ///   the file holds the overrides in force unless its refusal says otherwise: ``refusal(after:writing:)``), or
    ///   could not be read at start.
    func changeDurably<Result>(
        _ directory: String,
        noting note: (inout PluginOverrides, _ pluginsFolder: String) -> Void,
        _ change: () throws(PluginRegistry.ChangeError) -> Result
    ) async throws(PluginRegistry.ChangeError) -> Result {
        guard let overridesFile, let pluginsFolder else { return try change() }
        if let overridesProblem { throw .refused(QuarantineReason(.storageFailed, overridesProblem)) }
        var proposed = overrides
        note(&proposed, pluginsFolder)
        guard proposed != overrides || overridesOnDiskDiffer else { return try change() }
        do {
            try await overridesFile.save(proposed)
            overridesOnDiskDiffer = false
            whileWriting?()
        } catch {
            throw .refused(QuarantineReason(.storageFailed, await refusal(after: error, writing: overridesFile)))
        }
        let result: Result
        do {
            result = try change()
        } catch {
            guard let notWrittenBack = await writeBack(after: directory), case .refused(var reason) = error else {
                throw error
            }
            reason.message +=
                "; writing back the plugins loaded and unloaded by hand failed (\(notWrittenBack)), so a restart may "
                + "make this change"
            throw .refused(reason)
        }
        overrides = proposed
        return result
    }

    /// The plugin folder `path` names, as the registry and the overrides know it: absolute, normalized, and in the
    /// plugins folder when its parent is the plugins folder through a symbolic link.
    ///
    /// - Throws: `fileMissing` for a relative path: the daemon does not know the caller's working directory.
    func pluginFolder(_ path: String) throws(PluginRegistry.ChangeError) -> String {
        guard path.hasPrefix("/") else {
            throw .refused(
                QuarantineReason(
                    .fileMissing,
                    "\(path) is not an absolute path: the daemon does not know the caller's working directory"
                )
            )
        }
        let folder = AbsolutePath.normalized(path)
        let parent = FileIO.parentDirectory(of: folder)
        guard let pluginsFolder, parent != pluginsFolder, let real = FileIO.realPath(parent),
            real == FileIO.realPath(pluginsFolder)
        else { return folder }
        return "\(pluginsFolder)/\(FileIO.fileName(of: folder))"
    }

    /// `path` in the form plugin folders are compared in: normalized when absolute.
    static func folderPath(_ path: String) -> String {
        path.hasPrefix("/") ? AbsolutePath.normalized(path) : path
    }

    // MARK: Private

    /// Writes the overrides in force over a change written for `directory` and then refused.
    ///
    /// - Returns: The failure that left the refused change in the file, which the next start then makes (a `Load`
    ///   refused at start again, or an `Unload` made then, whose dependants then fail to load); `nil` once the file
    ///   holds the overrides in force.
    private func writeBack(after directory: String) async -> (any Error)? {
        guard let failure = await writeOverridesInForce() else { return nil }
        logger.error(
            "Cannot write back the plugins loaded and unloaded by hand after a refused change",
            metadata: ["navhost.plugin.directory": "\(directory)", "error": "\(failure)"]
        )
        return failure
    }

    /// The words of the `storageFailed` refusal of a change whose overrides could not be written (`error`), once the
    /// file holds the overrides in force as far as the disk lets it.
    ///
    /// A file renamed into place whose folder's `fsync` failed (``FileAccessError/mayHaveReplaced``) may hold the
    /// refused change, which a restart would make: the overrides in force are written over it before the refusal is
    /// answered. When that write fails too, the refusal says a restart may make the change.
    private func refusal(after error: any Error, writing overridesFile: PluginOverridesFile) async -> String {
        let refused = "cannot write \(overridesFile.path), so a restart would undo it: \(error)"
        guard let uncertain = error as? FileAccessError, uncertain.mayHaveReplaced,
            let notWrittenBack = await writeOverridesInForce()
        else { return refused }
        logger.error(
            "Cannot write back the plugins loaded and unloaded by hand over a change that may be in place",
            metadata: ["navhost.file": "\(overridesFile.path)", "error": "\(notWrittenBack)"]
        )
        return "\(refused); the file may hold the change all the same, and writing back the plugins loaded and "
            + "unloaded by hand before it failed too (\(notWrittenBack)): a restart may make it"
    }

    /// Writes ``overrides`` over whatever change the file holds, and notes whether the file may differ from them
    /// (``overridesOnDiskDiffer``).
    ///
    /// - Returns: The write's failure when it left the file as it was; `nil` once the file holds the overrides in
    ///   force, or may (renamed into place, its folder's `fsync` failed: a restart reads it unless the system
    ///   crashes).
    private func writeOverridesInForce() async -> (any Error)? {
        guard let overridesFile else { return nil }
        do {
            try await overridesFile.save(overrides)
        } catch {
            if let renamed = error as? FileAccessError, renamed.mayHaveReplaced {
                overridesOnDiskDiffer = false
                return nil
            }
            overridesOnDiskDiffer = true
            return error
        }
        overridesOnDiskDiffer = false
        return nil
    }

    private func readOverrides() {
        guard let overridesFile else { return }
        switch overridesFile.load() {
        case .success(let read):
            overrides = read
        case .failure(let problem):
            overridesProblem = "the list of plugins loaded and unloaded by hand cannot be read (\(problem.detail))"
            logger.error(
                "Cannot read the list of plugins loaded and unloaded by hand; Load and Unload are refused until it can",
                metadata: ["navhost.file": "\(overridesFile.path)", "error": "\(problem.detail)"]
            )
        }
    }
}
