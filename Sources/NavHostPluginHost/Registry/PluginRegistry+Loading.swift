import NavHostCore
import NavHostKit
import NavHostStorage

// The checks one plugin goes through, in order; the first that fails quarantines it (see `PluginRegistry`).

extension PluginRegistry {
    /// Loads the plugin `manifest` describes from `directory` (its library from `libraryPath` when given, else from
    /// a private copy of the manifest's `library`), records and logs the outcome.
    func load(_ manifest: PluginManifest, from directory: String, libraryPath: String?) -> PluginStatus {
        let started = ContinuousClock.now
        // Before the folder's files are read: a change from now on gives other stamps (PluginFolderStamps).
        let seen = PluginFolderStamps(of: directory, manifest: manifest)
        var path = libraryPath ?? "\(directory)/\(manifest.library)"
        var opened = false
        do throws(QuarantineReason) {
            try checkPermissions(of: manifest, in: directory)
            if libraryPath == nil { path = try privateCopy(of: path, for: manifest.name) }
            defer { if !opened, libraryPath == nil, path.hasPrefix(imageDirectory) { FileIO.remove(path) } }
            try checkLibraryFile(at: path, for: manifest, from: "\(directory)/\(manifest.library)")
            try checkResources(of: manifest, in: directory)
            try checkCompatibility(of: manifest, replacing: nil)
            let library = try open(path, for: manifest)
            opened = true
            let module = try featureModule(of: library, describedBy: manifest)
            try register(module, describedBy: manifest, from: directory, replacing: nil)
            var status = PluginStatus(
                name: manifest.name,
                directory: directory,
                manifest: manifest,
                state: .loaded,
                libraryPath: path,
                loadDuration: ContinuousClock.now - started
            )
            status.servingSince = status.triedAt
            record(status)
            foldersAsTried[directory] = seen
            refreshOptionalFeatures()
            logger.info(
                "Loaded a plugin",
                metadata: [
                    "navhost.plugin": "\(manifest.name)",
                    "navhost.plugin.version": "\(manifest.version)",
                    "navhost.plugin.path": "\(path)",
                    "navhost.plugin.routes": "\(manifest.routeIDs.joined(separator: " "))",
                    "navhost.plugin.duration": "\(status.loadDuration!)",
                ]
            )
            return status
        } catch {
            return quarantine(
                manifest.name,
                in: directory,
                manifest: manifest,
                error,
                libraryPath: opened ? path : nil,
                duration: ContinuousClock.now - started
            )
        }
    }
}

// MARK: - Checks, shared with reloading

extension PluginRegistry {
    /// No one but root and the daemon's user could change the manifest, which pins the library by its checksum, or
    /// the library, which may be loaded from where it is when the state folder cannot take a copy.
    func checkPermissions(of manifest: PluginManifest, in directory: String) throws(QuarantineReason) {
        let manifestPath = "\(directory)/\(PluginManifest.fileName)"
        guard let problem = PathSafety.problem(with: manifestPath, "\(directory)/\(manifest.library)") else { return }
        throw QuarantineReason(
            .unsafePermissions,
            "\(problem): whoever can change the plugin's manifest or library would choose the code navhostd runs"
        )
    }

    /// The folder of private copies: `<state-dir>/plugin-images`.
    var imageDirectory: String { "\(stateDirectory)/plugin-images" }

    /// Copies `library` to a path never used before in this state folder: `<state>/plugin-images/<name>-<n>.so`.
    ///
    /// Every library is loaded from such a copy. `dlopen` of a path already loaded returns the old image, so a new
    /// build needs a fresh path; and the daemon never maps a file an operator may later overwrite in place, which
    /// would change code under a running process. When the state folder cannot take the copy (full, read-only), the
    /// library itself is returned, with a warning: the plugin is served, and only a reload in place is weakened.
    func privateCopy(of library: String, for name: String) throws(QuarantineReason) -> String {
        guard FileIO.kind(of: library) == .regularFile else {
            throw QuarantineReason(.fileMissing, "the library \(library) named by the manifest is not there")
        }
        do {
            try FileIO.makeDirectories(imageDirectory, mode: 0o700)
            var number = 1
            while FileIO.kind(of: "\(imageDirectory)/\(name)-\(number).so") != nil { number += 1 }
            let image = "\(imageDirectory)/\(name)-\(number).so"
            try FileIO.copy(library, to: image)
            return image
        } catch {
            // The plugin is fine; the state folder is not (full, read-only). Loading from the plugin's own folder
            // serves it now; only a later reload of a new build in place needs the copy.
            logger.warning(
                "Cannot copy a plugin's library into the state folder; loading it from its own folder",
                metadata: ["navhost.plugin": "\(name)", "navhost.file": "\(library)", "error": "\(error)"]
            )
            return library
        }
    }

    /// The file is there, is the one the manifest was written for, and is a shared object for this machine.
    ///
    /// - Parameters:
    ///   - path: The file checked: the private copy that is then loaded, so that what is checked is what runs.
    ///   - original: The file in the plugin's folder it was copied from, which the reasons name: the one an operator
    ///     can look at and stage again.
    func checkLibraryFile(
        at path: String,
        for manifest: PluginManifest,
        from original: String
    ) throws(QuarantineReason) {
        guard FileIO.kind(of: path) == .regularFile else { throw .libraryMissing(original) }
        // Read once: the checksum, the header and the layout all look at the same bytes.
        let contents: [UInt8]
        do {
            contents = try FileIO.readFile(path, limit: 1 << 30)
        } catch {
            throw .libraryUnreadable(original, error)
        }
        let digest = SHA256.hexDigest(of: contents)
        guard digest == manifest.sha256 else { throw .checksumMismatch(original, digest: digest, manifest: manifest) }
        guard let header = ELFHeader(bytes: contents) else {
            throw QuarantineReason(.notASharedObject, "\(original) is not an ELF file")
        }
        if let problem = header.problem {
            throw QuarantineReason(.notASharedObject, "\(original) cannot be loaded here: \(problem)")
        }
        // A truncated library whose manifest was written after the cut passes the checksum; dlopen would map pages
        // past the file's end, and the first touch of one kills the daemon with SIGBUS.
        if let truncation = ELFLayout(bytes: contents)?.truncation {
            throw QuarantineReason(.notASharedObject, "\(original) cannot be loaded: \(truncation)")
        }
    }

    /// Every resource the manifest lists is a file in `directory`: a plugin whose resources are not all there would
    /// fail when its feature first reads one (at start, or long after).
    func checkResources(of manifest: PluginManifest, in directory: String) throws(QuarantineReason) {
        if let missing = PluginDirectory.missingResourceReason(of: manifest, in: directory) { throw missing }
    }

    /// The SDK version, the dependencies and the routes, from the manifest alone.
    func checkCompatibility(of manifest: PluginManifest, replacing replaced: String?) throws(QuarantineReason) {
        guard manifest.sdkVersion.isCompatible(withHost: sdkVersion) else {
            throw QuarantineReason(
                .abiMismatch,
                "built against NavHostKit \(manifest.sdkVersion); this daemon has \(sdkVersion), which serves "
                    + "plugins built against \(sdkVersion.major).0.0 to \(sdkVersion.major).\(sdkVersion.minor).x: "
                    + (manifest.sdkVersion.major == sdkVersion.major
                        ? "build the plugin against this daemon's SDK, or update the daemon"
                        : "build the plugin against a NavHostKit \(sdkVersion.major).x SDK")
            )
        }
        for dependency in manifest.hardDependencies {
            let wanted = "\(dependency.name) \(dependency.versions)"
            guard let status = status(named: dependency.name), status.isLoaded, let version = status.version else {
                let why = status(named: dependency.name)?.quarantineReason.map { "was quarantined (\($0.code))" }
                throw QuarantineReason(.dependencyMissing, "needs \(wanted), which \(why ?? "is not installed")")
            }
            guard dependency.versions.contains(version) else {
                throw QuarantineReason(.dependencyVersionMismatch, "needs \(wanted), and \(version) is loaded")
            }
        }
        if catalog.entry(named: manifest.name) != nil, manifest.name != replaced {
            // Which folder serves the name: the one to remove or unload for this one to load.
            let serving = statuses.first { $0.name == manifest.name && $0.isLoaded }.map { " from \($0.directory)" }
            throw QuarantineReason(
                .duplicateName,
                "the plugin \(manifest.name) is already loaded\(serving ?? ""): a new build of that folder loads with "
                    + "navctl plugins reload \(manifest.name); another folder's once that one's folder is removed, or "
                    + "by hand: navctl plugins unload \(manifest.name) (which keeps every folder of the name out), then "
                    + "navctl plugins load <its folder>"
            )
        }
        for route in manifest.routeIDs {
            if let owner = catalog.owner(ofRoute: route), owner != replaced {
                // Refused now, it may win at the next start, which loads the plugins of a folder by name.
                throw QuarantineReason(
                    .routeConflict,
                    "route \(route) is already offered by \(owner); while both are in the plugins folder, a restart "
                        + "gives it to the one it loads first (by name, after their dependencies): take one out"
                )
            }
        }
    }

    /// Opens the library, unless this very build took the daemon down before (``PluginFaultGuard``); the fault guard
    /// follows it from before its first instruction runs.
    func open(_ path: String, for manifest: PluginManifest) throws(QuarantineReason) -> PluginLibrary {
        if let fault = faultGuard?.fault(of: manifest) { throw fault.quarantineReason }
        let library: PluginLibrary
        do {
            library = try PluginLibrary(path: path)
        } catch {
            let remedy = Self.remedy(forLoadFailure: error.detail).map { "; \($0)" } ?? ""
            throw QuarantineReason(.libraryLoadFailed, "dlopen refused \(path): \(error.detail)\(remedy)")
        }
        faultGuard?.watch(libraryAt: path, of: manifest)
        return library
    }

    /// What to do about a library `dlopen` refused for `detail`, when the reason says: a library it needs that this
    /// machine does not have where the plugin looks for it.
    static func remedy(forLoadFailure detail: String) -> String? {
        guard detail.contains("cannot open shared object file") else { return nil }
        if detail.contains("libswiftSwiftOnoneSupport.so") {
            // Only a debug build needs it; an installed navhostd, a release build, does not map it, and a machine
            // without the Swift toolchain (a device with the navhost package) has none.
            return "a debug build of the plugin needs the Swift toolchain's libswiftSwiftOnoneSupport.so, which "
                + "this machine does not have where the plugin looks: build it in release (make CONFIG=release and "
                + "make install CONFIG=release in its package, or swift build -c release)"
        }
        return "the plugin needs a library this machine does not have where the plugin's run path looks (ldd on its "
            + "library lists what is not found)"
    }

    /// Calls the entry point and checks the module against the manifest.
    func featureModule(
        of library: PluginLibrary,
        describedBy manifest: PluginManifest
    ) throws(QuarantineReason) -> any FeatureModule {
        let module: any FeatureModule
        do {
            module = try library.featureModule()
        } catch {
            switch error {
            case .missingSymbol(let symbol):
                throw QuarantineReason(.missingEntrySymbol, "\(library.path) does not export \(symbol)")
            case .notAFeatureModule:
                throw QuarantineReason(
                    .abiMismatch,
                    "the entry point returned an object that is not a FeatureModule of this daemon's NavHostKit "
                        + "(was the plugin linked with its own copy of the SDK?)"
                )
            case .notLoadable(let detail):
                throw QuarantineReason(.libraryLoadFailed, detail)
            }
        }
        guard module.name == manifest.name else {
            throw QuarantineReason(
                .manifestMismatch,
                "the module is named \(module.name), the manifest \(manifest.name)"
            )
        }
        // What the library itself was compiled against (FeatureModule.sdkVersion is emitted into it), in case the
        // manifest says otherwise.
        guard module.sdkVersion.isCompatible(withHost: sdkVersion) else {
            throw QuarantineReason(
                .abiMismatch,
                "the library reports it was built against NavHostKit \(module.sdkVersion) (the manifest says "
                    + "\(manifest.sdkVersion)); this daemon has \(sdkVersion), which serves plugins built against "
                    + "\(sdkVersion.major).0.0 to \(sdkVersion.major).\(sdkVersion.minor).x: build the plugin against "
                    + "this daemon's SDK and stage it again"
            )
        }
        // Compatible, but not what the manifest says (edited by hand): `List` would report the manifest's version.
        guard module.sdkVersion == manifest.sdkVersion else {
            throw QuarantineReason(
                .manifestMismatch,
                "the library reports it was built against NavHostKit \(module.sdkVersion), the manifest says "
                    + "\(manifest.sdkVersion): stage the plugin again"
            )
        }
        let routes = module.screens.map(PluginManifest.Route.init)
        guard routes == manifest.routes else {
            let offered = routes.map(\.route)
            let detail =
                offered == manifest.routeIDs
                ? "the parameters, intents or summaries differ"
                : "the module offers \(offered), the manifest lists \(manifest.routeIDs)"
            throw QuarantineReason(.manifestMismatch, "\(detail): stage the plugin again")
        }
        return module
    }

    /// The store of the feature `name`: the one its earlier builds had, or a new one at its first load.
    func store(of name: String) -> any KeyValueStore {
        if let store = stores[name] { return store }
        let store = makeStore(name)
        stores[name] = store
        return store
    }

    /// Adds `module` to the catalog, or swaps it for the feature `replaced` when given.
    func register(
        _ module: any FeatureModule,
        describedBy manifest: PluginManifest,
        from directory: String,
        replacing replaced: String?,
        accepting refusal: (any FeatureCoordinator) -> QuarantineReason? = { _ in nil }
    ) throws(QuarantineReason) {
        let services = HostServices(
            logger: FeatureLogger(swiftLog: logger, feature: module.name),
            clock: clock,
            store: store(of: module.name),
            resourceDirectory: directory,
            random: SessionRandomSource(),
            optionalFeatures: optionalFeatures(for: manifest)
        )
        do {
            if let replaced {
                try catalog.replace(replaced, with: module, services: services) { refusal($0)?.message }
            } else {
                try catalog.register(module, services: services)
            }
        } catch {
            switch error {
            case .routeConflict(let route, let owner):
                throw QuarantineReason(.routeConflict, "route \(route) is already offered by \(owner)")
            case .duplicateFeature(let name):
                throw QuarantineReason(.duplicateName, "a feature named \(name) is already loaded")
            case .malformedRoute(let route):
                throw QuarantineReason(.manifestMismatch, "route ID \"\(route)\" is not namespace.name")
            case .coordinatorFailed(let detail):
                throw QuarantineReason(.initialisationFailed, "makeCoordinator(services:) threw: \(detail)")
            case .refused(let reason):
                throw QuarantineReason(.inUse, reason)
            }
        }
    }
}

extension PluginLibrary.OpenError {
    /// The error's text without its case name.
    fileprivate var detail: String {
        switch self {
        case .notLoadable(let text): text
        case .missingSymbol(let symbol): "no symbol \(symbol)"
        case .notAFeatureModule: "the entry point did not return a FeatureModule"
        }
    }
}
