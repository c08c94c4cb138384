import NavHostCore
import NavHostKit
public import NavHostPluginHost
import NavHostStorage

/// Writes a plugin's `manifest.json` from its `plugin.json` and its built library.
///
/// The routes come from the library itself: the builder loads it through the daemon's own loader
/// (``PluginLibrary``, `dlopen` with `RTLD_NODELETE`), calls its entry point and reads the module's `screens`, so
/// the manifest cannot drift from the code. `sdkVersion` is the NavHostKit the library was compiled against, which
/// the library itself reports (``FeatureModule/sdkVersion`` is emitted into it), whatever SDK this tool runs with;
/// `sha256` is the library's digest.
public enum ManifestBuilder {
    /// The manifest of the library at `libraryPath`, built for the plugin `source` describes.
    ///
    /// - Throws: ``PluginToolError`` when the library cannot be loaded, or its module is not `source`'s feature.
    public static func manifest(for source: PluginSource, libraryPath: String) throws(PluginToolError) -> PluginManifest
    {
        guard FileIO.kind(of: libraryPath) == .regularFile else {
            throw PluginToolError(.libraryNotBuilt, notBuiltMessage(libraryPath, for: source))
        }
        let module: any FeatureModule
        do {
            module = try PluginLibrary(path: libraryPath).featureModule()
        } catch {
            throw PluginToolError(.libraryUnusable, "\(libraryPath): \(error)")
        }
        guard module.name == source.name else {
            throw PluginToolError(
                .moduleMismatch,
                "\(libraryPath) holds the feature \(module.name), but plugin.json names \(source.name)"
            )
        }
        let digest: String
        do {
            digest = try SHA256.hexDigest(ofFileAt: libraryPath)
        } catch {
            throw PluginToolError(.fileSystem, "cannot read \(libraryPath): \(error.message)")
        }
        for screen in module.screens where !screen.unknownIntents.isEmpty {
            let names = screen.unknownIntents.map { "\"\($0)\"" }.joined(separator: ", ")
            let one = screen.unknownIntents.count == 1
            throw PluginToolError(
                .moduleMismatch,
                "the screen \(screen.route) lists the \(one ? "intent" : "intents") \(names) in its ViewModel's "
                    + "Intent.names, but its Intent enum has no case of \(one ? "that name" : "those names"): a Send "
                    + "could never reach \(one ? "it" : "them") (a misspelt name, or a case renamed since)"
            )
        }
        let manifest = PluginManifest(
            name: source.name,
            version: source.version,
            summary: source.summary,
            sdkVersion: module.sdkVersion,
            library: FileIO.fileName(of: libraryPath),
            sha256: digest,
            routes: module.screens.map(PluginManifest.Route.init),
            dependencies: source.dependencies,
            resources: source.resources
        )
        do {
            try manifest.validate()
        } catch {
            throw PluginToolError(.moduleMismatch, "the module's screens do not make a valid manifest: \(error)")
        }
        return manifest
    }
}

// MARK: - Private Functions

extension ManifestBuilder {
    /// Why the library at `libraryPath` is not there: not built yet, or, when the build folder holds another feature's
    /// library, a `plugin.json` whose name is not the package's (the library's name comes from it).
    fileprivate static func notBuiltMessage(_ libraryPath: String, for source: PluginSource) -> String {
        let folder = FileIO.parentDirectory(of: libraryPath)
        let others = ((try? FileIO.directoryEntries(folder)) ?? []).filter { name in
            name.hasPrefix("lib") && name.hasSuffix("Feature.so") && "\(folder)/\(name)" != libraryPath
        }.sorted()
        guard !others.isEmpty else { return "\(libraryPath) does not exist: build the package first" }
        return
            "\(libraryPath) does not exist: build the package first; if it is built (\(folder) holds "
            + "\(others.joined(separator: ", "))), plugin.json names \(source.name), so the library must be the "
            + "package's product \(source.name)Feature"
    }
}
