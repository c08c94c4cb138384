import Logging
import NavHostStorage

// What control clients loaded and unloaded by hand, kept on disk before they are answered and put back at start.

extension PluginControl {
    // MARK: Loading at start

    /// Loads the plugins at start: every plugin of the plugins folder `directory` but those unloaded by hand (listed
    /// as `removed`), then those loaded by hand from elsewhere, in the order they were, then the plugins of
    /// `directory` that waited for one of those. Failures are logged and kept in the registry's statuses.
    ///
    /// A file of overrides that cannot be read is left alone: everything in `directory` loads, and `Load` and
    /// `Unload` are refused (`storageFailed`) until a restart can read it.
    public func loadAtStart(from directory: String) {
        let base = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        pluginsFolder = base
        readOverrides()
        let unloadedHere = overrides.unloaded.filter { PluginOverrides.isPlugin($0, of: base) }
        registry.loadAll(from: base, excluding: Set(unloadedHere.map { FileIO.fileName(of: $0) }))
        for path in unloadedHere { registry.recordRemoved(pluginAt: path) }
        var anyLoaded = false
        for path in overrides.loaded where !registry.loadedPlugins.contains(where: { $0.directory == path }) {
            let status = registry.load(pluginAt: path)
            anyLoaded = anyLoaded || status.isLoaded
            if let reason = status.quarantineReason {
                logger.error(
                    "A plugin loaded by hand before cannot be loaded again; Load it again once fixed, or Unload it",
                    metadata: ["navhost.plugin.directory": "\(path)", "error": "\(reason)"]
                )
            }
        }
        if anyLoaded { retryWaitingPlugins(in: base) }
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

    // MARK: Writing the overrides

    /// Applies `change` to the overrides, given the plugins folder, and writes them when it changed them.
    ///
    /// - Returns: The overrides before, for ``undoDurably(_:of:)``; `nil` when nothing was written.
    /// - Throws: `storageFailed` when they cannot be written (the overrides are then as before for `directory`), or
    ///   could not be read at start.
    func noteDurably(
        _ directory: String,
        _ change: (inout PluginOverrides, _ pluginsFolder: String) -> Void
    ) async throws(PluginRegistry.ChangeError) -> PluginOverrides? {
        guard let overridesFile, let pluginsFolder else { return nil }
        if let overridesProblem { throw .refused(QuarantineReason(.storageFailed, overridesProblem)) }
        let before = overrides
        change(&overrides, pluginsFolder)
        guard overrides != before else { return nil }
        do {
            try await overridesFile.save(overrides)
        } catch {
            overrides.restore(directory, as: before)
            throw .refused(
                QuarantineReason(
                    .storageFailed,
                    "cannot write \(overridesFile.path), so a restart would undo it: \(error)"
                )
            )
        }
        return before
    }

    /// Puts `directory` back in the overrides as `before` held it, after the change written for it was refused, and
    /// writes them. A failure is logged: the next start then tries the refused change again, and refuses it again.
    func undoDurably(_ before: PluginOverrides?, of directory: String) async {
        guard let before, let overridesFile else { return }
        overrides.restore(directory, as: before)
        do {
            try await overridesFile.save(overrides)
        } catch {
            logger.error(
                "Cannot write back the plugins loaded and unloaded by hand after a refused change",
                metadata: ["navhost.plugin.directory": "\(directory)", "error": "\(error)"]
            )
        }
    }

    // MARK: Private

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
