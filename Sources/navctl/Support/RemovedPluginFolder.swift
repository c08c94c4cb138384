import NavHostStorage
import NavHostWire

// MARK: - A plugin folder taken out of the plugins folder

/// A plugin folder taken out of the plugins folder the daemon watches, as `navctl plugins wait --removed` follows it:
/// the daemon unloads the plugin it served from there, or refuses to, and the plugin keeps serving from its private
/// copy (loaded plugins list it as a hard dependency, or it serves a session's configured root).
struct RemovedPluginFolder: Sendable {
    /// The folder, absolute.
    let folder: String
    /// When the folder was taken out, as near as can be told: when the folder that held it last changed (a rename or
    /// a deletion sets that), in milliseconds since the Unix epoch. A refusal the daemon made before it is about an
    /// earlier removal, since undone.
    let removedAt: Int64

    /// What the daemon made of the folder's removal.
    enum Verdict: Sendable, Equatable {
        /// Nothing serves from the folder any more.
        case removed
        /// The daemon refused to remove the plugin: it keeps serving, for `refusal`.
        case refused(PluginInfo, refusal: PluginInfo.RemovalRefused)
        /// It serves from the folder still, and has not refused to stop since the folder went: the daemon has not
        /// acted yet.
        case pending
    }

    /// The folder `folder` (absolute), taken out.
    init(folder: String) {
        self.folder = folder
        self.removedAt = PluginFolderPath.changedAt(FileIO.parentDirectory(of: folder)) ?? 0
    }

    /// What the daemon whose plugins are `plugins` made of the folder's removal.
    func verdict(in plugins: [PluginInfo]) -> Verdict {
        guard let loaded = serving(in: plugins) else { return .removed }
        if let refusal = loaded.removalRefused, (loaded.triedAt ?? .max) >= removedAt {
            return .refused(loaded, refusal: refusal)
        }
        return .pending
    }

    /// The plugin among `plugins` that serves from the folder, if one does.
    func serving(in plugins: [PluginInfo]) -> PluginInfo? {
        plugins.first { $0.state == .loaded && PluginFolderPath.isSame($0.folder, as: folder) }
    }

    /// The plugin among `plugins` listed as removed from the folder, if one is: the daemon keeps the last plugin of a
    /// folder that went away in its list.
    func removedPlugin(in plugins: [PluginInfo]) -> PluginInfo? {
        plugins.first { $0.state == .removed && PluginFolderPath.isSame($0.folder, as: folder) }
    }
}
