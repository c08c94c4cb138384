import Glibc
import NavHostJSON
import NavHostStorage
import NavHostWire

// MARK: - A build staged in a plugin folder

/// The build of a plugin in a folder, as `navctl plugins wait` looks for it among the daemon's plugins: its name,
/// version and library's SHA-256, as the folder's manifest records them, and when the folder was put in place.
struct StagedBuild: Sendable {
    /// The plugin's folder, absolute.
    let folder: String
    /// The plugin's name.
    let name: String
    /// Its version, as its manifest says.
    let version: String?
    /// The SHA-256 of its library: which build it is.
    let sha256: String
    /// When the folder was put in place (its status change time: a rename into the plugins folder sets it), in
    /// milliseconds since the Unix epoch. A refusal the daemon made before it is about an earlier install.
    let installedAt: Int64

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
        guard let installedAt = PluginFolderPath.changedAt(folder) else {
            throw StagedBuildError("cannot read \(folder): \(String(cString: strerror(errno)))")
        }
        self.folder = folder
        self.name = name
        self.version = manifest["version"]?.stringValue
        self.sha256 = sha256
        self.installedAt = installedAt
    }

    /// What the daemon whose plugins are `plugins` made of this build.
    ///
    /// An answer is one the daemon gave after the folder was put in place (the plugin's `triedAt`): the same build
    /// refused before, and put in place again once the cause was mended, is waited for; so is a build that serves
    /// already, put in place again, until the daemon has checked that the folder holds it whole (and a new manifest
    /// of a library and version that serve, whose new dependencies or resources may be refused).
    func verdict(in plugins: [PluginInfo]) -> Verdict {
        for plugin in plugins where plugin.name == name && isThisFolder(plugin.folder) {
            switch plugin.state {
            case .loaded:
                if let failure = plugin.lastReloadFailure, plugin.lastRefusedBuild == sha256, isAnswer(plugin) {
                    return .refused(plugin, reason: failure)
                }
                if plugin.sha256 == sha256, version == nil || plugin.version == version, isAnswer(plugin) {
                    return .served(plugin)
                }
            case .quarantined where plugin.sha256 == sha256 && isAnswer(plugin):
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

    /// The line `navctl plugins wait` prints for `plugin`, which serves this build: the daemon's event when the one
    /// that answered is about it (`loaded` or `reloaded OLD → NEW` of the library serving, or `checked` for a serving
    /// build put in place again). When navctl did not see that event (the daemon answered before navctl began to
    /// follow, or after another plugin's event), the same line from what the plugin says of when it began to serve;
    /// `serving NAME VERSION from LIBRARY` from a daemon that does not say.
    func describeServing(_ plugin: PluginInfo, answeredBy event: PluginEvent?) -> String {
        if let event, event.name == name, event.version == plugin.version, isThisFolder(event.folder) {
            // Each load is of a private copy of its own: the path tells this load from an earlier one.
            let isThisLoad = (event.kind == .loaded || event.kind == .reloaded) && event.path == plugin.path
            // A `checked` that follows this install's reload (the folder's later changes) is not what it did.
            if isThisLoad || (event.kind == .checked && !madeServe(plugin)) { return PluginView.describe(event) }
        }
        guard let servingSince = plugin.servingSince else {
            return "serving \(plugin.name) \(plugin.version) from \(plugin.path)"
        }
        // Served as an answer, the daemon tried the folder after the build was put in place: it loaded it then, or
        // it served before and checked the folder.
        let event =
            servingSince >= installedAt
            ? PluginEvent(
                kind: plugin.replacedVersion == nil ? .loaded : .reloaded,
                name: plugin.name,
                version: plugin.version,
                previousVersion: plugin.replacedVersion,
                path: plugin.path
            )
            : PluginEvent(kind: .checked, name: plugin.name, version: plugin.version, folder: plugin.folder ?? folder)
        return PluginView.describe(event)
    }

    /// Whether putting this build in place made `plugin`, which serves it, serve: loaded or reloaded after the folder
    /// was put in place, not served before (`true` from a daemon that does not say).
    func madeServe(_ plugin: PluginInfo) -> Bool {
        plugin.servingSince.map { $0 >= installedAt } ?? true
    }

    /// The folder the daemon whose plugins are `plugins` loads plugins from by itself, when this build's folder is
    /// not in it and the daemon knows nothing of it (it will not take the build by itself); `nil` otherwise, and when
    /// it cannot tell (no plugin it loaded from its plugins folder).
    func unwatchedFolder(in plugins: [PluginInfo]) -> String? {
        // Loaded rows only: `loadedByHand` marks the loaded ones from elsewhere, not a refused folder loaded by hand.
        let watched = plugins.filter { $0.state == .loaded && $0.loadedByHand != true }.compactMap(\.folder)
            .map { FileIO.parentDirectory(of: $0) }
        let parent = FileIO.parentDirectory(of: folder)
        guard let first = watched.first, !watched.contains(where: { PluginFolderPath.isSame($0, as: parent) }),
            !plugins.contains(where: { isThisFolder($0.folder) })
        else { return nil }
        return first
    }

    /// Whether the daemon tried the plugin's folder after this build was put in place (or does not say when).
    private func isAnswer(_ plugin: PluginInfo) -> Bool {
        guard let triedAt = plugin.triedAt else { return true }
        return triedAt >= installedAt
    }

    /// Whether `other`, a folder the daemon names, is this build's folder.
    private func isThisFolder(_ other: String?) -> Bool {
        PluginFolderPath.isSame(other, as: folder)
    }
}

/// Why a folder holds no plugin build navctl can wait for.
struct StagedBuildError: Error, CustomStringConvertible {
    /// What is wrong, for a person.
    let description: String

    /// Creates the error saying `description`.
    init(_ description: String) { self.description = description }
}
