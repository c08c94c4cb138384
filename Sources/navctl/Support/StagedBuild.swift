import Glibc
import NavHostJSON
import NavHostStorage
import NavHostWire

// MARK: - A build staged in a plugin folder

/// The build of a plugin in a folder, as `navctl plugins wait` looks for it among the daemon's plugins: its name and
/// its library's SHA-256, as the folder's manifest records them.
struct StagedBuild: Sendable {
    /// The plugin's folder, absolute.
    let folder: String
    /// The plugin's name.
    let name: String
    /// The SHA-256 of its library: which build it is.
    let sha256: String

    /// What the daemon made of the build.
    enum Verdict: Sendable, Equatable {
        /// It serves this build.
        case served(PluginInfo)
        /// It refused this build, for `reason`; a version loaded before keeps serving when `plugin` is loaded.
        case refused(PluginInfo, reason: PluginInfo.Quarantine)
        /// It has not taken the build yet.
        case pending
    }

    /// Reads the manifest of the plugin in `folder` (absolute).
    ///
    /// - Throws: A message saying why the folder holds no plugin build.
    init(folder: String) throws(StagedBuildError) {
        let path = "\(folder)/manifest.json"
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readFile(path)
        } catch {
            throw StagedBuildError("\(folder) holds no staged plugin: \(error)")
        }
        let manifest: JSONValue
        do {
            manifest = try JSONParser().parse(bytes)
        } catch {
            throw StagedBuildError("\(path) does not read as a plugin's manifest: \(error)")
        }
        guard let name = manifest["name"]?.stringValue, let sha256 = manifest["sha256"]?.stringValue else {
            throw StagedBuildError("\(path) names no plugin and no library checksum (name, sha256)")
        }
        self.folder = folder
        self.name = name
        self.sha256 = sha256
    }

    /// What the daemon whose plugins are `plugins` made of this build.
    func verdict(in plugins: [PluginInfo]) -> Verdict {
        for plugin in plugins where plugin.name == name && isThisFolder(plugin.folder) {
            switch plugin.state {
            case .loaded where plugin.sha256 == sha256:
                return .served(plugin)
            case .loaded:
                if let failure = plugin.lastReloadFailure, plugin.lastRefusedBuild == sha256 {
                    return .refused(plugin, reason: failure)
                }
            case .quarantined where plugin.sha256 == sha256:
                if let reason = plugin.quarantine { return .refused(plugin, reason: reason) }
            case .removed where plugin.unloadedByHand == true:
                return .refused(
                    plugin,
                    reason: PluginInfo.Quarantine(
                        code: "unloadedByHand",
                        message: "it was unloaded by hand and stays out, whatever its folder holds, until navctl "
                            + "plugins load \(folder)"
                    )
                )
            default:
                continue
            }
        }
        return .pending
    }

    /// The folder the daemon whose plugins are `plugins` loads plugins from by itself, when this build's folder is
    /// not in it and the daemon knows nothing of it (it will not take the build by itself); `nil` otherwise, and when
    /// it cannot tell (the daemon has no plugin of its plugins folder).
    func unwatchedFolder(in plugins: [PluginInfo]) -> String? {
        let found = plugins.first { $0.state != .removed && $0.loadedByHand != true && $0.folder != nil }
        guard let watched = found?.folder,
            Self.resolved(Self.parent(watched)) != Self.resolved(Self.parent(folder)),
            !plugins.contains(where: { isThisFolder($0.folder) })
        else { return nil }
        return Self.parent(watched)
    }

    /// Whether `other`, a folder the daemon names, is this build's folder (symbolic links resolved).
    private func isThisFolder(_ other: String?) -> Bool {
        guard let other else { return false }
        return other == folder || Self.resolved(other) == Self.resolved(folder)
    }

    /// `path` with symbolic links resolved; `path` itself when it does not resolve.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}

/// Why a folder holds no plugin build navctl can wait for.
struct StagedBuildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
