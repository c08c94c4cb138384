import FoundationEssentials
import Glibc
import NavHostCore
public import NavHostKit
public import NavHostPluginHost
import NavHostStorage

/// Puts a built plugin where the daemon loads it from: `<output>/<Name>/` with `manifest.json`, a copy of the
/// library, and the resources.
///
/// ```
/// .build/debug/plugins/Products/
/// ├── manifest.json
/// ├── libProductsFeature.so
/// └── products.json
/// ```
///
/// The folder is assembled beside its final place (`.<Name>.staging-<pid>`) and then swapped in, so a daemon that
/// scans the output folder meanwhile sees the old plugin or the new one, never half of one.
public enum PluginStager {
    /// What was staged.
    public struct StagedPlugin: Sendable, Hashable {
        /// The plugin's folder in the output.
        public var directory: String
        /// The manifest written there.
        public var manifest: PluginManifest
        /// The files in the package's `Resources/` that `plugin.json` does not list, by their path there: not
        /// staged, so the daemon's plugin cannot read them (a test reading the folder can).
        public var unlistedResources: [String] = []
    }

    /// A warning for a plugin whose library was built against a NavHostKit that `toolSDK` (this tool's, and the
    /// daemon's it came with) cannot serve, a newer minor or another major version: such a daemon refuses it
    /// (`abiMismatch`); `nil` when it can load.
    public static func sdkWarning(
        for manifest: PluginManifest,
        toolSDK: NavHostKitVersion = .current
    ) -> String? {
        let built = manifest.sdkVersion
        guard !built.isCompatible(withHost: toolSDK) else { return nil }
        let daemons =
            built.major == toolSDK.major
            ? "a daemon of \(built.major).\(built.minor) or a later \(built.major).x"
            : "a daemon of NavHostKit \(built.major).\(built.minor) or a later \(built.major).x (another major version)"
        return "\(manifest.name) is built against NavHostKit \(built), which a daemon with this tool's \(toolSDK) "
            + "refuses (abiMismatch): build it against the daemon's SDK (NAVHOST_SDK), or load it into \(daemons)"
    }

    /// Stages the plugin whose sources are in `pluginFolder` (holding `plugin.json` and `Resources/`), from the
    /// library SwiftPM built in `buildDirectory`, into `outputDirectory`.
    ///
    /// - Throws: ``PluginToolError``.
    @discardableResult
    public static func stage(
        pluginFolder: String,
        buildDirectory: String,
        outputDirectory: String
    ) throws(PluginToolError) -> StagedPlugin {
        let source = try PluginSource(folder: pluginFolder)
        let library = "\(buildDirectory)/\(source.libraryName)"
        let manifest = try ManifestBuilder.manifest(for: source, libraryPath: library)
        for resource in source.resources {
            let path = "\(pluginFolder)/\(PluginSource.resourcesFolder)/\(resource)"
            guard FileIO.kind(of: path) == .regularFile else {
                throw PluginToolError(
                    .badSource,
                    "plugin.json lists the resource \(resource), but \(path) is not a file"
                )
            }
        }

        let final = "\(outputDirectory)/\(source.name)"
        let staging = "\(outputDirectory)/.\(source.name).staging-\(getpid())"
        let retired = "\(outputDirectory)/.\(source.name).old-\(getpid())"
        try fileSystem("assemble \(final)") {
            let files = FileManager.default
            let madeOutput = FileIO.kind(of: outputDirectory) == nil
            try files.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
            if madeOutput { try Self.setMode(0o755, of: outputDirectory) }
            try? files.removeItem(atPath: staging)
            try files.createDirectory(atPath: staging, withIntermediateDirectories: false)
            try files.copyItem(atPath: library, toPath: "\(staging)/\(manifest.library)")
            for resource in source.resources {
                let target = "\(staging)/\(resource)"
                try files.createDirectory(atPath: FileIO.parentDirectory(of: target), withIntermediateDirectories: true)
                try files.copyItem(
                    atPath: "\(pluginFolder)/\(PluginSource.resourcesFolder)/\(resource)",
                    toPath: target
                )
            }
            // Writable by its owner alone, whatever the umask: navhostd refuses a plugin others could change
            // (`unsafePermissions`), and under a umask of 002 the folder and the library came out group-writable.
            try Self.setMode(0o755, of: staging)
            try Self.setMode(0o755, of: "\(staging)/\(manifest.library)")
            for path in Self.files(under: staging, levels: 8, includingFolders: true) where path != manifest.library {
                let full = "\(staging)/\(path)"
                try Self.setMode(FileIO.kind(of: full) == .directory ? 0o755 : 0o644, of: full)
            }
        }
        // The digest of the copy: what the daemon will check.
        var staged = manifest
        do {
            staged.sha256 = try SHA256.hexDigest(ofFileAt: "\(staging)/\(manifest.library)")
            try FileIO.writeAtomically(try staged.jsonBytes(), to: "\(staging)/\(PluginManifest.fileName)")
        } catch {
            throw PluginToolError(.fileSystem, "cannot write the manifest in \(staging): \(error)")
        }
        try fileSystem("swap \(final) in") {
            let files = FileManager.default
            if FileIO.kind(of: final) != nil { try files.moveItem(atPath: final, toPath: retired) }
            try files.moveItem(atPath: staging, toPath: final)
            try? files.removeItem(atPath: retired)
        }
        let listed = Set(source.resources)
        let unlisted = files(under: "\(pluginFolder)/\(PluginSource.resourcesFolder)").filter { !listed.contains($0) }
        return StagedPlugin(directory: final, manifest: staged, unlistedResources: unlisted)
    }

    /// The regular files under `folder` (none when it is missing), by their path from it, sorted; hidden ones left out;
    /// with `includingFolders`, the folders too, each before what it holds. Eight levels deep at most: a symbolic link
    /// to a folder above would otherwise be followed until paths overflow.
    private static func files(under folder: String, levels: Int = 8, includingFolders: Bool = false) -> [String] {
        guard levels > 0, let entries = try? FileIO.directoryEntries(folder) else { return [] }
        return entries.filter { !$0.hasPrefix(".") }.flatMap { name -> [String] in
            switch FileIO.kind(of: "\(folder)/\(name)") {
            case .regularFile: [name]
            case .directory:
                (includingFolders ? [name] : [])
                    + files(under: "\(folder)/\(name)", levels: levels - 1, includingFolders: includingFolders)
                    .map { "\(name)/\($0)" }
            default: []
            }
        }
    }

    /// Sets the permission bits of `path` to `mode`.
    private static func setMode(_ mode: mode_t, of path: String) throws {
        guard chmod(path, mode) == 0 else { throw FileAccessError.system("chmod", path: path, errno: errno) }
    }

    /// The plugin folders in `pluginsFolder`: its subfolders that hold a `plugin.json`, by name.
    public static func pluginFolders(in pluginsFolder: String) throws(PluginToolError) -> [String] {
        let names: [String]
        do {
            names = try FileIO.directoryEntries(pluginsFolder)
        } catch {
            throw PluginToolError(.fileSystem, "cannot list \(pluginsFolder): \(error.message)")
        }
        return names.map { "\(pluginsFolder)/\($0)" }.filter {
            FileIO.kind(of: "\($0)/\(PluginSource.fileName)") == .regularFile
        }
    }

    private static func fileSystem(_ step: String, _ body: () throws -> Void) throws(PluginToolError) {
        do {
            try body()
        } catch {
            throw PluginToolError(.fileSystem, "cannot \(step): \(error)")
        }
    }
}
