import NavHostCore
import NavHostKit
import NavHostStorage

// MARK: - Following the plugins folder

extension PluginControl {
    /// Brings the loaded plugins in step with `directory`, as SIGHUP does: loads new plugins, reloads those whose
    /// manifest changed, unloads those whose folder is gone. Failures are logged, kept in the registry's statuses
    /// and published; nothing throws.
    public func rescan(_ directory: String) {
        synchronize(with: directory, folders: nil, waitingForCompleteFiles: false)
    }

    /// Follows `directory` as `changes` reports it, until `changes` ends: the plugins folder watched.
    ///
    /// A plugin folder that changed is acted on once it is complete: its manifest reads and the library it names
    /// has the manifest's SHA-256. A folder still being written (a slow copy, a library replaced before its
    /// manifest) is left alone until it is complete, or until `changes` reports `.settled` — then it is tried as it
    /// is, and what is wrong with it is reported as a `failed` event.
    public func follow(_ directory: String, changes: AsyncStream<PluginFolderMonitor.Change>) async {
        var incomplete: Set<String> = []
        for await change in changes { take(change, of: directory, incomplete: &incomplete) }
    }

    /// One change of `directory` as ``follow(_:changes:)`` takes it; `incomplete` holds the folders left alone so far
    /// (not complete yet, or gone while their plugin is loaded), tried again at the next change or once it settles.
    func take(_ change: PluginFolderMonitor.Change, of directory: String, incomplete: inout Set<String>) {
        switch change {
        case .changed(let folders?):
            incomplete = synchronize(with: directory, folders: folders.union(incomplete), waitingForCompleteFiles: true)
        case .changed(nil):
            incomplete = synchronize(with: directory, folders: nil, waitingForCompleteFiles: true)
        case .settled:
            guard !incomplete.isEmpty else { return }
            synchronize(with: directory, folders: incomplete, waitingForCompleteFiles: false)
            incomplete = []
        }
    }
}

// MARK: - Private Functions

extension PluginControl {
    /// Acts on the plugin folders `folders` of `directory` (every folder there, and every plugin loaded from one,
    /// when `nil`).
    ///
    /// - Returns: The folders left alone because they are not complete yet (only with `waitingForCompleteFiles`).
    @discardableResult
    private func synchronize(
        with directory: String,
        folders: Set<String>?,
        waitingForCompleteFiles: Bool
    ) -> Set<String> {
        let base = Self.folderPath(directory)
        let loadedHere = registry.loadedPlugins.filter { FileIO.parentDirectory(of: $0.directory) == base }
        let onDisk = Set(
            ((try? FileIO.directoryEntries(base)) ?? []).filter { name in
                !name.hasPrefix(".") && FileIO.kind(of: "\(base)/\(name)") == .directory
            }
        )
        let considered = folders ?? onDisk.union(loadedHere.map { FileIO.fileName(of: $0.directory) })
        var incomplete: Set<String> = []
        var toLoad: Set<String> = []
        var unloadedAny = false
        for folder in considered.sorted() where !folder.hasPrefix(".") {
            let path = "\(base)/\(folder)"
            let loaded = loadedHere.first { $0.directory == path }
            guard onDisk.contains(folder) else {
                // Watched, a loaded plugin's folder that is gone may be one being replaced: removed (or moved aside),
                // then the new build moved in. It is unloaded only if it is still gone once the plugins folder has
                // settled; back before that, its new build reloads in place, screens and state kept.
                if loaded != nil, waitingForCompleteFiles {
                    incomplete.insert(folder)
                    continue
                }
                if let loaded {
                    // Seen gone by the watcher, a refusal is said again: whoever took the folder out waits for it.
                    unloadVanished(loaded, sayingAgain: folders?.contains(folder) == true)
                    unloadedAny = unloadedAny || registry.status(named: loaded.name)?.isLoaded != true
                }
                for refused in registry.forgetFailures(in: path) {
                    publish(.removed(refused.name, version: refused.version, folder: refused.directory))
                }
                refusedBuilds[path] = nil
                continue
            }
            // Before the folder is read: what a check of it records as the folder as tried (``recheckFolder``).
            let seen = loaded.map { PluginFolderStamps(of: path, manifest: $0.manifest) }
            let manifest = try? PluginDirectory.readManifest(in: path).get()
            // Watched, a folder that does not hold its manifest's build whole may be a copy still being written: it
            // waits for the plugins folder to settle.
            let checkedWhole = waitingForCompleteFiles
            if checkedWhole, manifest.map({ PluginDirectory.incompleteness(of: $0, in: path) == nil }) != true {
                incomplete.insert(folder)
                continue
            }
            guard let loaded else {
                // A folder unloaded by hand stays so, whatever it holds, until a Load of it.
                if overrides.unloaded.contains(path) {
                    logger.info(
                        "Left alone a plugin folder unloaded by hand; Load it to bring it back",
                        metadata: ["navhost.plugin.directory": "\(path)"]
                    )
                } else {
                    toLoad.insert(folder)
                }
                continue
            }
            if loaded.removalRefused != nil {
                setRemovalRefusal(nil, of: loaded.name)
                logger.info(
                    "The folder of a plugin whose removal was refused is back; it goes on serving",
                    metadata: ["navhost.plugin": "\(loaded.name)", "navhost.plugin.directory": "\(path)"]
                )
            }
            guard let manifest else {
                // Its manifest went bad: trying the reload reports why, and the loaded version keeps serving.
                _ = try? reload(loaded.name)
                continue
            }
            if manifest == loaded.manifest {
                // The folder holds the serving build again: the refused one it held is no longer there to report.
                if refusedBuilds.removeValue(forKey: path) != nil { clearReloadFailure(of: loaded.name) }
                // Put in place again, it is the build a restart loads: a file missing from it is said now. Only a
                // folder changed since the daemon last tried it: the watcher's events of a copy it has loaded or
                // reloaded already (a file closed, a batch that came after the one it acted on) ask for nothing. A
                // rescan (SIGHUP, or the watcher's lost events) looks at every folder the same way.
                if folders?.contains(folder) ?? true, let seen, hasChanged(path, since: seen) {
                    recheckFolder(
                        of: loaded.name,
                        found: checkedWhole ? nil : PluginDirectory.incompleteness(of: manifest, in: path),
                        seen: seen
                    )
                }
                continue
            }
            // Only for a manifest that changed: the library's stamp is a system call per folder.
            let build = RefusedBuild(manifest, in: path)
            guard build != refusedBuilds[path] else { continue }
            if manifest.name == loaded.name {
                do {
                    try reload(loaded.name)
                    refusedBuilds[path] = nil
                } catch {
                    refusedBuilds[path] = build
                }
            } else {
                unloadVanished(loaded)
                toLoad.insert(folder)
            }
        }
        load(toLoad, from: base)
        // A copy of a plugin now gone, refused as duplicateName while it served, takes its place, as at a restart.
        if unloadedAny { retryWaitingPlugins(in: base) }
        return incomplete
    }

    /// Records the check of the folder of the loaded plugin `name`, which changed but holds the serving manifest,
    /// and publishes what it found: `checked`, or `failed` with `problem`, the reason a restart would refuse the
    /// build there. `seen` is the folder's stamps, read before the check read it.
    private func recheckFolder(of name: String, found problem: QuarantineReason?, seen: PluginFolderStamps) {
        registry.recordFolderCheck(of: name, found: problem, seen: seen)
        guard let status = registry.status(named: name) else { return }
        if let problem {
            publish(.failed(name, version: status.version, folder: status.directory, reason: problem))
        } else {
            publish(.checked(status))
        }
    }

    /// Loads the plugin folders `folders` of `directory`, dependencies first; then retries the plugins there that
    /// waited for a dependency, if any plugin loaded. Publishes each outcome that differs from the folder's last.
    private func load(_ folders: Set<String>, from directory: String) {
        guard !folders.isEmpty else { return }
        let before = outcomesByFolder()
        var anyLoaded = false
        for status in registry.loadAll(from: directory, only: folders) where before[status.directory] != status.state {
            anyLoaded = anyLoaded || status.isLoaded
            publish(.outcome(of: status))
        }
        if anyLoaded { retryWaitingPlugins(in: directory) }
    }

    /// Tries again the plugins of `directory` (by default the plugins folder ``loadAtStart(from:)`` loaded)
    /// quarantined because a dependency was missing or another plugin had their name, now that others came or went,
    /// as a restart would. Publishes each outcome that differs from the folder's last.
    func retryWaitingPlugins(in directory: String? = nil) {
        guard let directory = directory ?? pluginsFolder else { return }
        let waiting = registry.quarantinedPlugins.filter { status in
            let code = status.quarantineReason?.code
            return
                (code == .dependencyMissing
                || (code == .duplicateName && registry.status(named: status.name)?.isLoaded != true))
                && FileIO.parentDirectory(of: status.directory) == directory
                && !overrides.unloaded.contains(status.directory)
        }
        // Folders loaded by hand outside it wait the same way: a restart would load them.
        let waitingByHand = registry.quarantinedPlugins.filter { status in
            status.quarantineReason?.code == .duplicateName && registry.status(named: status.name)?.isLoaded != true
                && overrides.loaded.contains(status.directory)
        }
        guard !waiting.isEmpty || !waitingByHand.isEmpty else { return }
        let before = outcomesByFolder()
        let names = Set(waiting.map { FileIO.fileName(of: $0.directory) })
        if !names.isEmpty {
            for status in registry.loadAll(from: directory, only: names) where before[status.directory] != status.state
            {
                publish(.outcome(of: status))
            }
        }
        for folder in Set(waitingByHand.map(\.directory)).sorted() {
            guard let name = waitingByHand.first(where: { $0.directory == folder })?.name,
                registry.status(named: name)?.isLoaded != true
            else { continue }
            let status = registry.load(pluginAt: folder)
            if before[status.directory] != status.state { publish(.outcome(of: status)) }
        }
    }

    /// The state of the last attempt at each plugin folder.
    private func outcomesByFolder() -> [String: PluginStatus.State] {
        Dictionary(registry.statuses.map { ($0.directory, $0.state) }, uniquingKeysWith: { _, last in last })
    }

    /// Unloads a plugin whose folder went away. When it cannot go (a session starts at one of its routes, or loaded
    /// plugins list it as a hard dependency), it keeps serving from its private copy, and the refusal is said three
    /// ways: a `warning` log line naming who needs it, its status's ``PluginStatus/removalRefused`` (what
    /// `io.navhost.Plugins.List` shows), and a `failed` event — once, unless `sayingAgain`, while it stays the same.
    /// Its status's ``PluginStatus/triedAt`` says when the daemon last refused.
    func unloadVanished(_ loaded: PluginStatus, sayingAgain: Bool = false) {
        do {
            try unload(loaded.name, because: "its folder was removed")
        } catch {
            guard case .refused(let reason) = error else { return }
            let refusal = PluginStatus.RemovalRefusal(
                neededBy: registry.hardDependents(of: loaded.name),
                rootOf: sessions.all.filter { loaded.routes.contains($0.configuredRoot.id) }.map(\.name).sorted()
            )
            let alreadySaid = registry.status(named: loaded.name)?.removalRefused == refusal
            setRemovalRefusal(refusal, of: loaded.name)
            if let index = registry.statuses.firstIndex(where: { $0.name == loaded.name && $0.isLoaded }) {
                registry.statuses[index].triedAt = PluginStatus.now()
            }
            if alreadySaid, sayingAgain {
                publish(.failed(loaded.name, version: loaded.version, folder: loaded.directory, reason: reason))
            }
            guard !alreadySaid else { return }
            logger.warning(
                "Refused to remove a plugin whose folder is gone; it keeps serving",
                metadata: [
                    "navhost.plugin": "\(loaded.name)",
                    "navhost.plugin.directory": "\(loaded.directory)",
                    "navhost.plugin.needed-by": "\(refusal.neededBy.joined(separator: " "))",
                    "navhost.plugin.root-of": "\(refusal.rootOf.joined(separator: " "))",
                    "error": "\(reason.message)",
                ]
            )
            publish(.failed(loaded.name, version: loaded.version, folder: loaded.directory, reason: reason))
        }
    }

    /// Whether the folder `path` of a loaded plugin, its library there or a resource it lists changed since the
    /// daemon last tried it: `seen`, their stamps now, differ from those that try read
    /// (``PluginRegistry/foldersAsTried``). Stamps, not times: a change during the try or in the same millisecond as
    /// its end is seen, and an unchanged folder is not.
    private func hasChanged(_ path: String, since seen: PluginFolderStamps) -> Bool {
        registry.foldersAsTried[path] != seen
    }
}
