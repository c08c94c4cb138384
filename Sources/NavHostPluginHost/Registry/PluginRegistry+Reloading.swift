import NavHostCore
import NavHostKit
import NavHostStorage

// Replacing a loaded plugin with the build now in its folder, and removing one.

extension PluginRegistry {
    /// What a successful reload swapped.
    public struct Replacement: Sendable, Hashable {
        /// The plugin's name.
        public var name: String
        /// The version that served before.
        public var oldVersion: SemanticVersion?
        /// The version that serves now.
        public var newVersion: SemanticVersion
        /// The routes the old version offered: the screens sessions must rebuild.
        public var oldRoutes: Set<String>
        /// The new version's status, also in ``PluginRegistry/statuses``.
        public var status: PluginStatus
    }

    /// Why a reload or an unload did nothing.
    public enum ChangeError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No loaded plugin has this name.
        case notLoaded(String)
        /// The new build was refused; the old version keeps serving.
        case refused(QuarantineReason)

        public var description: String {
            switch self {
            case .notLoaded(let name): "no plugin named \(name) is loaded"
            case .refused(let reason): "\(reason)"
            }
        }
    }

    /// Loads the build now in the loaded plugin `name`'s folder in place of the one serving.
    ///
    /// The library is copied to a fresh file, `<state-dir>/plugin-images/<Name>-<n>.so`, and loaded from there,
    /// as every library is (`dlopen` of a path already loaded returns the old image). The copy goes through every
    /// check of a first load (manifest, SHA-256 of the copy, ELF, SDK, dependencies, entry point, routes against the
    /// manifest); routes are judged as if the old version were gone. Then the catalog swaps the two as one step.
    ///
    /// The old code stays mapped (nothing is ever unloaded), so each reload costs the memory of one more image.
    ///
    /// - Parameters:
    ///   - refusalToDrop: Why the new build may not leave out the routes it is given, routes of the old version its
    ///     manifest no longer lists (a session starts at one); `nil` when it may. Asked before any code is loaded.
    ///   - refusalToServe: Why the new build's composition root is refused (it cannot build the root of a session
    ///     that starts at one of its routes); `nil` to take it. Asked before the swap.
    /// - Returns: What was swapped; the caller rebuilds the sessions' screens of ``Replacement/oldRoutes``.
    /// - Throws: ``ChangeError/notLoaded(_:)``, or ``ChangeError/refused(_:)`` when the new build fails a check: the
    ///   old version keeps serving and its status's ``PluginStatus/lastReloadFailure`` says why.
    ///
    /// Internal: only ``PluginControl`` reloads, since a reload without rebuilding the sessions' screens and telling
    /// the watchers leaves screens built by the old code.
    func reload(
        _ name: String,
        refusalToDrop: (_ routes: Set<String>) -> QuarantineReason? = { _ in nil },
        refusalToServe: (any FeatureCoordinator) -> QuarantineReason? = { _ in nil }
    ) throws(ChangeError) -> Replacement {
        guard let index = statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else {
            throw .notLoaded(name)
        }
        let old = statuses[index]
        let started = ContinuousClock.now
        var build: String?
        var seen: PluginFolderStamps?
        do throws(QuarantineReason) {
            let manifest: PluginManifest
            switch PluginDirectory.readManifest(in: old.directory) {
            case .success(let read): manifest = read
            case .failure(let reason): throw reason
            }
            build = manifest.sha256
            // Before the library and the resources are read: a change from now on gives other stamps.
            seen = PluginFolderStamps(of: old.directory, manifest: manifest)
            guard manifest.name == name else {
                throw QuarantineReason(
                    .manifestMismatch,
                    "the manifest in \(old.directory) now names \(manifest.name), not \(name)"
                )
            }
            let oldRoutes = routes(servedBy: old)
            let dropped = oldRoutes.subtracting(manifest.routeIDs)
            if !dropped.isEmpty, let refusal = refusalToDrop(dropped) { throw refusal }
            try checkPermissions(of: manifest, in: old.directory)
            let image = try privateCopy(of: "\(old.directory)/\(manifest.library)", for: name)
            var opened = false
            defer { if !opened, image.hasPrefix(imageDirectory) { FileIO.remove(image) } }
            try checkLibraryFile(at: image, for: manifest, from: "\(old.directory)/\(manifest.library)")
            try checkResources(of: manifest, in: old.directory)
            try checkCompatibility(of: manifest, replacing: name)
            let library = try open(image, for: manifest)
            opened = true
            let module = try featureModule(of: library, describedBy: manifest)
            try register(module, describedBy: manifest, from: old.directory, replacing: name, accepting: refusalToServe)
            var status = PluginStatus(
                name: name,
                directory: old.directory,
                manifest: manifest,
                state: .loaded,
                libraryPath: image,
                loadDuration: ContinuousClock.now - started
            )
            status.servingSince = status.triedAt
            status.replacedVersion = old.version
            statuses[index] = status
            foldersAsTried[old.directory] = seen
            refreshOptionalFeatures()
            logger.info(
                "Reloaded a plugin",
                metadata: [
                    "navhost.plugin": "\(name)",
                    "navhost.plugin.version": "\(manifest.version)",
                    "navhost.plugin.previous-version": "\(old.version.map { "\($0)" } ?? "")",
                    "navhost.plugin.path": "\(image)",
                ]
            )
            return Replacement(
                name: name,
                oldVersion: old.version,
                newVersion: manifest.version,
                oldRoutes: oldRoutes,
                status: status
            )
        } catch {
            statuses[index].lastReloadFailure = error
            statuses[index].lastRefusedBuild = build
            statuses[index].triedAt = PluginStatus.now()
            if let seen { foldersAsTried[old.directory] = seen }
            logger.warning(
                "Refused a plugin's new build; the old version keeps serving",
                metadata: [
                    "navhost.plugin": "\(name)",
                    "navhost.plugin.reason": "\(error.code)",
                    "error": "\(error.message)",
                ]
            )
            throw .refused(error)
        }
    }

    /// Records what a check of the loaded plugin `name`'s folder, whose manifest is the one serving, found: `problem`,
    /// why the folder does not hold that build whole (``PluginDirectory/incompleteness(of:in:)``), or `nil`. It is
    /// the build a restart loads from there; nothing is loaded now. A library with the serving build's checksum is
    /// the file that passed a load's checks, so the checksum and the resources are all there is to check.
    ///
    /// Stamps the status's ``PluginStatus/triedAt``, and keeps `seen`, the folder's stamps read before the check
    /// read it, as the folder as tried. A problem is kept as the status's ``PluginStatus/lastReloadFailure`` (the
    /// loaded version keeps serving); a folder whole again clears a failure an earlier build of the folder left.
    func recordFolderCheck(of name: String, found problem: QuarantineReason?, seen: PluginFolderStamps) {
        guard let index = statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else { return }
        statuses[index].triedAt = PluginStatus.now()
        foldersAsTried[statuses[index].directory] = seen
        statuses[index].lastReloadFailure = problem
        statuses[index].lastRefusedBuild = problem == nil ? nil : statuses[index].manifest?.sha256
        guard let problem else { return }
        logger.warning(
            "The folder of a serving plugin no longer holds its build whole; a restart would refuse it",
            metadata: [
                "navhost.plugin": "\(name)",
                "navhost.plugin.directory": "\(statuses[index].directory)",
                "navhost.plugin.reason": "\(problem.code)",
                "error": "\(problem.message)",
            ]
        )
    }

    /// Records in the status of the loaded plugin `name` what the reload that made it serve lost
    /// (``PluginStatus/lostAtReload``).
    func recordLoss(of name: String, _ lost: [LostScreens]) {
        guard let index = statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else { return }
        statuses[index].lostAtReload = lost
    }

    /// The routes the loaded plugin `status` serves: its catalog entry's, or those its status lists.
    func routes(servedBy status: PluginStatus) -> Set<String> {
        Set(catalog.entry(named: status.name)?.screens.map(\.route) ?? status.routes)
    }

    /// Why unloading the plugin `name` would be refused because loaded plugins list it as a hard dependency (`inUse`,
    /// naming them); `nil` when none does.
    func dependentsRefusal(toUnload name: String) -> QuarantineReason? {
        let dependents = hardDependents(of: name)
        guard !dependents.isEmpty else { return nil }
        return QuarantineReason(
            .inUse,
            "\(name) is needed by \(dependents.joined(separator: ", ")): unload those first"
        )
    }

    /// Takes the loaded plugin `name` out of the catalog: its routes disappear, its status becomes `removed`, and
    /// the features that list it as an optional dependency are told it is gone. Its code stays mapped.
    ///
    /// - Returns: The routes it offered: the caller removes the sessions' screens of these.
    /// - Throws: ``ChangeError/notLoaded(_:)``; ``ChangeError/refused(_:)`` (`inUse`) when another loaded plugin
    ///   lists it as a hard dependency.
    ///
    /// Internal: only ``PluginControl`` unloads, since the sessions' screens of the routes have to go with them.
    func unload(_ name: String, because why: String = "unloaded") throws(ChangeError) -> Set<String> {
        guard let index = statuses.firstIndex(where: { $0.name == name && $0.isLoaded }) else {
            throw .notLoaded(name)
        }
        if let refusal = dependentsRefusal(toUnload: name) { throw .refused(refusal) }
        let old = statuses[index]
        let routes = routes(servedBy: old)
        catalog.unregister(name)
        foldersAsTried[old.directory] = nil
        statuses[index] = PluginStatus(name: name, directory: old.directory, manifest: old.manifest, state: .removed)
        logger.info(
            "Unloaded a plugin",
            metadata: [
                "navhost.plugin": "\(name)",
                "navhost.plugin.version": "\(old.version.map { "\($0)" } ?? "")",
                "navhost.plugin.reason": "\(why)",
                "navhost.plugin.routes": "\(routes.sorted().joined(separator: " "))",
            ]
        )
        refreshOptionalFeatures()
        return routes
    }
}
